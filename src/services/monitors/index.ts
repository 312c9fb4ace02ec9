/**
 * Monitors and their webhooks: the monitor requests and events of the engine's monitor methods, the deliverer behind
 * `engine.webhooks` (its deliveries, attempts and subscriptions) and the signature a receiver checks each delivery
 * with. Exports the public surface of src/services/monitors/ and only that: the library module (src/library.ts)
 * re-exports it whole.
 *
 * @example
 * import { verifySignature, SIGNATURE_HEADER } from 'trainprint/monitors'
 * const ok = await verifySignature(secret, await request.text(), request.headers.get(SIGNATURE_HEADER) ?? '')
 */
export type { CreateMonitorRequest, Monitor, MonitorEvent, MonitorEventType, MonitorModelState } from './monitors.js';
export { signPayload, verifySignature, SIGNATURE_HEADER } from './signature.js';
export { WebhookDeliverer, EVENT_HEADER, DELIVERY_HEADER } from './webhook.js';
export type {
  Delivery,
  DeliveryAttempt,
  DeliveryState,
  WebhookDelivererOptions,
  WebhookEvent,
  WebhookSubscription,
} from './webhook.js';
