/** Types of ./cluster.mjs (a plain script, so CI can run it without a build). */
export function findPostgresBin(): string | undefined;
export function startCluster(options?: { durable?: boolean }): Promise<{ url: string; dir: string; stop(): void }>;
export function stopCluster(dir: string): void;
export function stopServer(dir: string): void;
export function startServer(dir: string): void;
