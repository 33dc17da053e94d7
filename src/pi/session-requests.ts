/**
 * What the extension remembers of the current session's requests: the conversion it sent last (the
 * next request's prompt prefix is compared with it), the bill of each response (a calibrated token
 * counter learns from it), and which filters it has already told about breaking the prompt cache.
 * One per extension instance; it starts over with every session pi starts (new, resumed, forked,
 * reloaded).
 */
import type { Message } from "@earendil-works/pi-ai";
import { type CalibratedCounter, calibratedCounter, type Observation } from "../filters/calibrated-counter.js";
import type { Conversion } from "../registry/types.js";
import { isRecord } from "../values.js";
import type { PiContext } from "./pi-api.js";

/**
 * The last response whose usage the extension read: what it was billed, or why its usage could not
 * be read, with the request it answered.
 */
export interface LastBill {
	/** How many messages the request held (as the extension passed them on). */
	messages: number;
	observation: Observation;
}

/**
 * The session's request memory.
 *
 * Contract: `previous(model)` is the conversion `sent` last in this session when it went to the same
 * model (a provider's cache is per model), else `undefined`; `ended` reads the `usage` of an
 * assistant message pi finished and has the counter observe it with the request sent last (once per
 * request: a message with no request waiting, such as the answer of a withheld one, is not
 * observed); `firstBreak` is true once per plugin name per session. `reset` forgets everything,
 * counter included. Never throws on what pi passes (anything may be in a message).
 *
 * @example
 * const memory = createSessionRequests();
 * const conversion = await registry.runAsync(history, { previous: memory.previous(model) });
 * memory.sent(conversion, model); // …then, on message_end: memory.ended(event.message)
 */
export interface SessionRequests {
	reset(): void;
	previous(model: string | undefined): Conversion | undefined;
	sent(conversion: Conversion, model: string | undefined): void;
	/** A request was withheld: no response will answer the one sent before it. */
	withheld(): void;
	ended(message: unknown): void;
	firstBreak(plugin: string): boolean;
	/** The calibrated counter of this session (pi's estimate until it has observed a bill). */
	counter(): CalibratedCounter;
	lastBill(): LastBill | undefined;
}

export function createSessionRequests(): SessionRequests {
	let counter = calibratedCounter();
	let last: { conversion: Conversion; model: string | undefined } | undefined;
	// The request sent last and not yet answered: the one a response's usage bills.
	let waiting: { output: readonly Message[]; model: string | undefined } | undefined;
	let bill: LastBill | undefined;
	let told = new Set<string>();
	return {
		reset() {
			counter = calibratedCounter();
			last = undefined;
			waiting = undefined;
			bill = undefined;
			told = new Set();
		},
		previous: (model) => (last !== undefined && last.model === model ? last.conversion : undefined),
		sent(conversion, model) {
			last = { conversion, model };
			waiting = { output: conversion.output, model };
		},
		withheld() {
			waiting = undefined;
		},
		ended(message) {
			const answered = waiting;
			if (answered === undefined) return;
			let usage: unknown;
			try {
				if (!isRecord(message) || message.role !== "assistant") return;
				usage = message.usage;
			} catch {
				return;
			}
			waiting = undefined;
			// The model the request went to, as `previous` and the counts for the next request name it.
			const options = answered.model === undefined ? undefined : { model: answered.model };
			bill = { messages: answered.output.length, observation: counter.observe(answered.output, usage, options) };
		},
		firstBreak(plugin) {
			if (told.has(plugin)) return false;
			told.add(plugin);
			return true;
		},
		counter: () => counter,
		lastBill: () => bill,
	};
}

/** `provider/id` of pi's current model (`ctx.model`), or `undefined` when pi has none or it cannot be read. */
export function modelOf(ctx: PiContext): string | undefined {
	try {
		const model: unknown = ctx.model;
		if (!isRecord(model)) return undefined;
		return typeof model.provider === "string" && typeof model.id === "string"
			? `${model.provider}/${model.id}`
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * The context window of pi's current model (`ctx.model.contextWindow`, in tokens), or `undefined`
 * when pi has no model, or it gives no finite window > 0, or it cannot be read.
 */
export function currentContextWindow(ctx: PiContext): number | undefined {
	try {
		const model: unknown = ctx.model;
		if (!isRecord(model)) return undefined;
		const window = model.contextWindow;
		return typeof window === "number" && Number.isFinite(window) && window > 0 ? window : undefined;
	} catch {
		return undefined;
	}
}
