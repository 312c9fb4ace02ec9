/**
 * The store layout of webhook deliveries and the checks both halves of the deliverer make: {@link WebhookDeliverer}
 * (./webhook.ts, in the library: options, enqueue, stage) and its delivery loop (./delivery-loop.ts, loaded on the
 * first run). Small on purpose: the two bundles each hold a copy.
 *
 * Keys: `delivery/<id>` holds the record; `delivery-due/<15-digit ms>/<id>` indexes the deliveries that still have an
 * attempt scheduled, so a run reads only what is due instead of scanning every delivery ever made.
 *
 * @example
 * tx.put(RECORD_PREFIX + delivery.id, delivery)
 * tx.put(dueKey(Date.now(), delivery.id), delivery.id)
 */
import { TrainprintError } from '../../errors.js';
import type { Store, Transaction } from '../../store/types.js';

/** Header naming the event type, e.g. `match.found`. */
export const EVENT_HEADER = 'Trainprint-Event';
/** Header carrying the delivery id (stable across retries of one delivery). */
export const DELIVERY_HEADER = 'Trainprint-Delivery';
/** `user-agent` of every delivery. */
export const WEBHOOK_USER_AGENT = 'trainprint-webhooks/1';
/** `last_error` of a due delivery whose subscription's secret this process cannot find (it stays due). */
export const SECRET_UNAVAILABLE = 'secret unavailable';

/** Where a delivery is in its life. */
export type DeliveryState = 'pending' | 'delivered' | 'failed_retrying' | 'dead_letter';

export const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed_retrying', 'dead_letter'];

/** One entry of a delivery's log. */
export interface DeliveryAttempt {
  /** ISO time the request was sent. */
  readonly at: string;
  /** HTTP status, when the receiver answered. */
  readonly status?: number;
  /** Why the attempt failed without a usable answer (network, timeout, redirect). */
  readonly error?: string;
  readonly duration_ms: number;
}

/** The stored delivery record (`delivery/<id>`). Never contains the secret. */
export interface Delivery {
  /** `dlv_` + 12 hex digits of creation time (ms) + 20 random hex digits: lists come out in creation order. */
  readonly id: string;
  readonly subscription_id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly url: string;
  readonly state: DeliveryState;
  /** Every attempt ever made, oldest first (kept across {@link WebhookDeliverer.retry}). */
  readonly attempts: readonly DeliveryAttempt[];
  /** ISO time of the next attempt; null once delivered or dead-lettered. */
  readonly next_attempt_at: string | null;
  /** Index into `attempts` where the current retry cycle began (0, or where `retry()` restarted it). */
  readonly cycle_start: number;
  /** The latest failure, including ones that made no request (`secret unavailable`). */
  readonly last_error?: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** The exact JSON body posted, fixed at enqueue so every retry sends identical bytes. */
  readonly body: string;
}

/** Filter of {@link WebhookDeliverer.list}. */
export interface ListDeliveriesOptions {
  readonly state?: DeliveryState;
  readonly subscription_id?: string;
}

/**
 * A deliverer's settings, its options checked and defaulted (./webhook.ts), and the secrets of the subscriptions its
 * process has seen: what the delivery loop runs with.
 */
export interface DeliverySettings {
  readonly store: Store;
  readonly fetch: typeof fetch;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly timeoutMs: number;
  /** How long an attempt's lease outlasts its request timeout (WebhookDelivererOptions.leaseMarginMs). */
  readonly leaseMarginMs: number;
  readonly concurrency: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** True when the caller gave `sleep` (it then also times the wake-ups of a started loop). */
  readonly customSleep: boolean;
  readonly random: () => number;
  readonly resolveSecret?: (subscriptionId: string) => Promise<string | undefined>;
  readonly onError: (error: unknown) => void;
  /** Secrets of subscriptions seen by `enqueue` and `stage` in this process; never persisted. */
  readonly secrets: Map<string, string>;
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export const RECORD_PREFIX = 'delivery/';
export const DUE_PREFIX = 'delivery-due/';

/** Move `next` to a new due time (or off the schedule), keeping the due index in step. */
export function reschedule(
  tx: Transaction,
  current: Delivery,
  next: Mutable<Delivery>,
  dueMs: number | undefined,
): void {
  if (isScheduled(current)) tx.delete(dueKey(Date.parse(current.next_attempt_at!), current.id));
  if (dueMs === undefined) {
    next.next_attempt_at = null;
    return;
  }
  next.next_attempt_at = new Date(dueMs).toISOString();
  tx.put(dueKey(dueMs, current.id), current.id);
}

export function isScheduled(d: Delivery): boolean {
  return (d.state === 'pending' || d.state === 'failed_retrying') && d.next_attempt_at !== null;
}

// Zero-padded so that string order (the store's key order) is time order.
export function dueKey(ms: number, id: string): string {
  return `${DUE_PREFIX}${String(Math.max(0, Math.floor(ms))).padStart(15, '0')}/${id}`;
}

export function dueMsOfKey(key: string): number {
  return Number(key.slice(DUE_PREFIX.length, DUE_PREFIX.length + 15));
}

export function invalid(detail: string): TrainprintError {
  return new TrainprintError('INVALID_INPUT', detail);
}

export function numberOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TrainprintError('INVALID_OPTIONS', `${name} must be a non-negative finite number`);
  }
  return value;
}

export function intOption(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw new TrainprintError('INVALID_OPTIONS', `${name} must be an integer ≥ ${min}`);
  }
  return value as number;
}
