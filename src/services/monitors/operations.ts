/**
 * The delivery loop of {@link WebhookDeliverer} (./delivery-loop.ts: runs, signing, retries, leases, the log's reads),
 * loaded on the deliverer's first run or read (./webhook.ts). A file of its own in the package (dist/webhook-work.js,
 * built on the library), so a program that never delivers a webhook carries none of it.
 *
 * @example
 * const { DeliveryLoop } = await import('./operations.js')
 */
export { DeliveryLoop } from './delivery-loop.js';
