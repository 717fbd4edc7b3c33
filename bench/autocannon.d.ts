// The part of autocannon's API bench/api.ts uses (the package ships no types; @types/autocannon is not installed).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(opts: { url: string; connections?: number; duration?: number; headers?: Record<string, string> }): Promise<Result>;
  export default autocannon;
}
