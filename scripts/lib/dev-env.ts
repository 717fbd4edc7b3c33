import path from 'node:path';

/** Fixed facts of the local development stack, shared by `npm run dev` and `npm run token`. */
export const REPO_ROOT = path.resolve(__dirname, '../..');
export const DATA_DIR = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : path.join(REPO_ROOT, '.data');
export const DEV_IDP_PORT = Number(process.env.DEV_IDP_PORT ?? 3999);
export const DEV_IDENTITY_DIR = path.join(DATA_DIR, 'dev-identity');
export const DEMO_USER_ID = '00000000-0000-4000-8000-00000000d3e0';
export const DEMO_ORG_NAME = 'Demo Organization';
