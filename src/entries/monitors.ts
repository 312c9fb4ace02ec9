/**
 * `trainprint/monitors` — monitors and their webhooks: the monitor requests and events of the engine's monitor
 * methods, the deliverer behind `engine.webhooks` (its deliveries, attempts and subscriptions) and the signature a
 * receiver checks each delivery with. What a receiver needs is in the main entry too.
 *
 * @example
 * import { verifySignature, SIGNATURE_HEADER } from 'trainprint/monitors'
 * // in the receiver of a webhook, with the subscription's secret:
 * const ok = await verifySignature(secret, await request.text(), request.headers.get(SIGNATURE_HEADER) ?? '')
 */
export {
  WebhookDeliverer,
  signPayload,
  verifySignature,
  SIGNATURE_HEADER,
  EVENT_HEADER,
  DELIVERY_HEADER,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryState,
  type WebhookDelivererOptions,
  type WebhookEvent,
  type WebhookSubscription,
  type CreateMonitorRequest,
  type Monitor,
  type MonitorEvent,
  type MonitorEventType,
  type MonitorModelState,
} from '../library.js';
