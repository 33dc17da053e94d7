import type { ImageContent, Message, TextContent } from "@mariozechner/pi-ai";
import { ConversionError } from "../errors.js";
import { causeText } from "../registry/guard.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";

/** Name of the `blockImages` plugin (its tap on `afterConvert`). */
export const BLOCK_IMAGES_PLUGIN = "convert-to-llm:block-images";

/** pi's placeholder for a removed image. */
export const IMAGE_PLACEHOLDER = "Image reading is disabled.";

/** Options of {@link blockImages}. */
export interface BlockImagesOptions {
	/**
	 * Whether images are blocked. A function is read on every conversion, so a live setting (pi's
	 * `settingsManager.getBlockImages`) takes effect mid-session; one that throws counts as `true`
	 * (images stay blocked) and is reported. Default `true`.
	 */
	enabled?: boolean | (() => boolean);
	/** The text that replaces each image. Default {@link IMAGE_PLACEHOLDER}, as pi. */
	placeholder?: string;
	/**
	 * Collapse only consecutive placeholders that replaced images, never a text block the user wrote
	 * that happens to equal the placeholder. Default `false`: pi 0.73.1's rule, which also collapses
	 * such a text block when it follows a placeholder-equal text.
	 */
	keepUserText?: boolean;
}

type Block = TextContent | ImageContent;

/**
 * Replaces every image in `user` and `toolResult` messages by a text placeholder, as pi's
 * `blockImages` setting does (same output, byte for byte, with the default options).
 *
 * Contract: only `user`/`toolResult` messages whose content is an array holding an image change; each
 * becomes a new message object (`{ ...message, content }`) with each image turned into the
 * placeholder text, then a placeholder-equal text block that directly follows another one in that
 * mapped list removed. Every other message, and the output array itself when nothing changes, is
 * passed on as is. Taps `afterConvert` at `Stage.SANITIZE`, so it runs for `convert` and `convertAsync`.
 *
 * @example
 * const registry = createDefaultRegistry().use(blockImages({ enabled: () => settings.blockImages }));
 */
export function blockImages(options: BlockImagesOptions = {}): Plugin {
	const { enabled = true, placeholder = IMAGE_PLACEHOLDER, keepUserText = false } = options;
	const isEnabled = typeof enabled === "function" ? enabled : () => enabled;
	const blockContent = keepUserText ? blockKeepingUserText : blockAsPi;

	// A setting that throws blocks images all the same (fails closed): skipping the filter would send them.
	const readEnabled = (ctx: HookContext): boolean => {
		try {
			return Boolean(isEnabled());
		} catch (cause) {
			ctx.report(
				new ConversionError(
					`blockImages: its enabled() setting threw: ${causeText(cause)}. Images were blocked all the same; fix the setting callback.`,
					{ plugin: BLOCK_IMAGES_PLUGIN, cause },
				),
			);
			return true;
		}
	};

	const filter = (messages: Message[], ctx: HookContext): Message[] => {
		if (!readEnabled(ctx)) return messages;
		// Copy on write: the array is copied (whole, so it stays packed) only once a message changes.
		let output: Message[] | undefined;
		for (let i = 0; i < messages.length; i++) {
			const message = messages[i] as Message;
			const role = message.role;
			if (role !== "user" && role !== "toolResult") continue;
			const content = message.content;
			if (!Array.isArray(content) || !hasImage(content)) continue;
			const blocked = { ...message, content: blockContent(content, placeholder) } as Message;
			ctx.inheritSource(blocked, message);
			if (output === undefined) output = messages.slice();
			output[i] = blocked;
		}
		if (output === undefined) return messages;
		return output;
	};

	return {
		name: BLOCK_IMAGES_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name: BLOCK_IMAGES_PLUGIN, stage: Stage.SANITIZE }, filter);
		},
	};
}

/**
 * Whether a content block is an image. Safe for malformed blocks (`null`, a string): a filter that
 * threw on one of them would be skipped, and every image of the history would reach the model.
 */
const isImage = (block: unknown): boolean =>
	block !== null && typeof block === "object" && (block as { type?: unknown }).type === "image";

function hasImage(content: readonly unknown[]): boolean {
	for (let i = 0; i < content.length; i++) if (isImage(content[i])) return true;
	return false;
}

const isPlaceholder = (block: unknown, placeholder: string): boolean =>
	block !== null &&
	typeof block === "object" &&
	(block as Partial<TextContent>).type === "text" &&
	(block as Partial<TextContent>).text === placeholder;

/** pi 0.73.1: map images to the placeholder, then drop a placeholder-equal text that follows one in the mapped list. */
function blockAsPi(content: readonly Block[], placeholder: string): Block[] {
	const mapped = content.map((block): Block => (isImage(block) ? { type: "text", text: placeholder } : block));
	return mapped.filter(
		(block, i) => !(i > 0 && isPlaceholder(block, placeholder) && isPlaceholder(mapped[i - 1], placeholder)),
	);
}

/** Like {@link blockAsPi}, but only a placeholder that replaced an image and follows another such one is dropped. */
function blockKeepingUserText(content: readonly Block[], placeholder: string): Block[] {
	const result: Block[] = [];
	for (let i = 0; i < content.length; i++) {
		const block = content[i] as Block;
		if (!isImage(block)) result.push(block);
		else if (i === 0 || !isImage(content[i - 1])) result.push({ type: "text", text: placeholder });
	}
	return result;
}
