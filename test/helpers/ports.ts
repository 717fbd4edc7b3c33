export { freeLoopbackPort as freePort } from '../../apps/shared/ports';
