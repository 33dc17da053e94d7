/**
 * What the loop dispatches on: each role's converters, in the order they are asked, with what the
 * store knows about them (an exclusion, `customType` converters, a lone pass-through). Built by the
 * store (`store.ts`), read by the loop; nothing here runs a converter.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { isRecord } from "../../values.js";
import type { ConvertContext, ConverterResult } from "../converter-types.js";

/** A converter as the store keeps it. */
export type ConverterFn = (message: AgentMessage, ctx: ConvertContext) => ConverterResult;

/** The converters of one role (or one `customType`), in the order they are asked. */
export interface ConverterList {
	readonly names: readonly string[];
	readonly fns: readonly ConverterFn[];
	/** The list converts a model role, so a converter returning the message itself returns a valid `Message`. */
	readonly modelRole: boolean;
}

/** How one role is dispatched. */
export interface RoleEntry {
	readonly role: string;
	readonly list: ConverterList;
	/** For `custom`: the converters of each `customType`, asked first. */
	readonly byCustomType: ReadonlyMap<string, ConverterList> | undefined;
	/** The role's only converter is {@link passThrough} on a model role: the message is its own result. */
	readonly identity: boolean;
	/** The plugin that excludes the role's `excludeFromContext` messages, if one does. */
	readonly excludedBy: string | undefined;
}

/** Role → its entry, in registration order (a `Map`: `"__proto__"` and `"constructor"` are roles too). */
export type RoleTable = ReadonlyMap<string, RoleEntry>;

/** No converter names: for a role nobody registered. */
export const NONE: readonly string[] = Object.freeze([]);

/**
 * The converter that returns the message itself: pi sends `user`, `assistant`, `toolResult` (and pi
 * 1.x's `system`) messages unchanged (the same object). The registry recognises it and skips the call.
 *
 * Contract: returns its argument, never a copy (`isolate: true` copies the output). `modelRoles`
 * registers it for pi-ai's roles; when it is such a role's only converter, the registry skips the
 * call and the result check. For any other role it fails to compile (an `AgentMessage` is not a
 * `Message`); forced through, each result is a `ConversionError`, reported or thrown as `strict` says.
 *
 * @example
 * registry.register("toolResult", passThrough, { name: "tool-results-as-is" });
 */
export const passThrough = <M>(message: M): M => message;

/** The `customType` of a custom message, when it is a string. Never throws. */
export function customTypeOf(message: unknown): string | undefined {
	try {
		const customType = isRecord(message) && message.role === "custom" ? message.customType : undefined;
		return typeof customType === "string" ? customType : undefined;
	} catch {
		return undefined;
	}
}
