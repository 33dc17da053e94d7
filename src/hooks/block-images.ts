/** `blockImages`: pi's image blocking, as a per-message sanitizer. */
import type { ImageContent, Message, TextContent } from "@earendil-works/pi-ai";
import { ConversionError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { errorText, isImageBlock, isNonTextBlock, isRecord, type LiveSetting, readSetting } from "../values.js";

/** Name of the `blockImages` plugin (its tap on `afterConvert`). */
export const BLOCK_IMAGES_PLUGIN = "convert-to-llm:block-images";

/** pi's placeholder for a removed image. */
export const IMAGE_PLACEHOLDER = "Image reading is disabled.";

/** Options of {@link blockImages}. */
export interface BlockImagesOptions {
	/**
	 * Whether images are blocked. A function is read on every conversion, so a live setting (pi's
	 * `settingsManager.getBlockImages`) takes effect mid-session; any value counts by its truthiness,
	 * as for `lint({ imagesBlocked })`, and one that throws counts as `true` (images stay blocked) and
	 * is reported. Default `true`.
	 */
	enabled?: LiveSetting;
	/** The text that replaces each image. Default {@link IMAGE_PLACEHOLDER}, as pi. */
	placeholder?: string;
	/**
	 * Collapse only consecutive placeholders that replaced images, never a text block the user wrote
	 * that happens to equal the placeholder. Default `false`: pi 0.73.1's rule, which also collapses
	 * such a text block when it follows a placeholder-equal text.
	 */
	keepUserText?: boolean;
	/**
	 * Treat every content block that is not a `text` block as an image ({@link isNonTextBlock}):
	 * pi-ai's Anthropic, OpenAI and Google providers send any non-text block of a `user` or
	 * `toolResult` message as an image, so `{ type: "Image", … }` or a bare `{ mimeType, data }` would
	 * reach the model under pi's `type === "image"` test. Default `false`: pi's test, byte for byte.
	 */
	strictImages?: boolean;
}

type Block = TextContent | ImageContent;

/** How blocks are tested and mapped: chosen once, in the factory. */
interface BlockRule {
	readonly isImage: (block: unknown) => boolean;
	readonly placeholder: string;
}

/**
 * Replaces every image in `user` and `toolResult` messages by a text placeholder, as pi's
 * `blockImages` setting does (same output, byte for byte, with the default options).
 *
 * Contract: only `user`/`toolResult` messages whose content is an array holding an image change; each
 * becomes a new message object (`{ ...message, content }`) with each image turned into the
 * placeholder text, then a placeholder-equal text block that directly follows another one in that
 * mapped list removed. Every other message (`system` and `assistant` ones included), and the output
 * array itself when nothing changes, is passed on as is. Fails closed, per message: a message it
 * cannot read (a throwing getter or proxy trap on its role, content, blocks or fields) is dropped and
 * reported as a `ConversionError` naming this plugin; the rest of the history is still filtered.
 * A sanitizer (`registry.sanitize`) at `Stage.SANITIZE`: an `afterConvert` tap, so it runs for
 * `convert` and `convertAsync`, which the registry applies as each output is appended when it is
 * the first `afterConvert` tap (no second pass over the output).
 *
 * @example
 * const registry = createDefaultRegistry().use(blockImages({ enabled: () => settings.blockImages }));
 */
export function blockImages(options: BlockImagesOptions = {}): Plugin {
	const { enabled = true, placeholder = IMAGE_PLACEHOLDER, keepUserText = false, strictImages = false } = options;
	const rule: BlockRule = { isImage: strictImages ? isNonTextBlock : isImageBlock, placeholder };
	const blockContent = keepUserText ? blockKeepingUserText : blockAsPi;

	const settingFailed = (ctx: HookContext) => (cause: unknown) =>
		ctx.report(
			new ConversionError(
				`blockImages: its enabled() setting threw: ${errorText(cause)}. Images were blocked all the same; fix the setting callback.`,
				{ plugin: BLOCK_IMAGES_PLUGIN, cause },
			),
		);

	/** The message with its images blocked, itself when it holds none; throws when it cannot be read. */
	const block = (message: Message): Message => {
		const role = message.role;
		if (role !== "user" && role !== "toolResult") return message;
		const content: unknown = message.content;
		if (!Array.isArray(content) || !hasImage(content, rule)) return message;
		return { ...message, content: blockContent(content, rule) } as Message;
	};

	return {
		name: BLOCK_IMAGES_PLUGIN,
		apply(registry) {
			registry.sanitize({
				name: BLOCK_IMAGES_PLUGIN,
				stage: Stage.SANITIZE,
				// The only roles whose images pi blocks (and pi-ai sends): the others are passed on unread.
				roles: ["user", "toolResult"],
				prepare(ctx) {
					// A setting that throws blocks images all the same (fails closed): skipping the filter would send them.
					if (!readSetting(enabled, settingFailed(ctx))) return undefined;
					return (message, position) => {
						try {
							return block(message);
						} catch (cause) {
							ctx.report(unreadableMessage(message, position, cause, ctx));
							return null;
						}
					};
				},
			});
		},
	};
}

function unreadableMessage(message: Message, outputIndex: number, cause: unknown, ctx: HookContext): ConversionError {
	let index: number | undefined;
	try {
		index = ctx.sourceOf(message)?.index;
	} catch {
		index = undefined;
	}
	const from = index === undefined ? "" : ` (from input message ${index})`;
	return new ConversionError(
		`blockImages: output message ${outputIndex}${from} could not be read: ${errorText(cause)}. ` +
			"It was dropped, since its images could not be blocked; fix what put it in the history.",
		{ plugin: BLOCK_IMAGES_PLUGIN, index, cause },
	);
}

function hasImage(content: readonly unknown[], rule: BlockRule): boolean {
	for (let i = 0; i < content.length; i++) if (rule.isImage(content[i])) return true;
	return false;
}

const isPlaceholder = (block: unknown, placeholder: string): boolean =>
	isRecord(block) && block.type === "text" && block.text === placeholder;

/**
 * pi 0.73.1: map images to the placeholder, then drop a placeholder-equal text that follows one in
 * the mapped list (whether or not that one was kept). One pass: `previous` says whether the mapped
 * block before was placeholder-equal.
 */
function blockAsPi(content: readonly unknown[], rule: BlockRule): Block[] {
	const { isImage, placeholder } = rule;
	const result: Block[] = [];
	let previous = false;
	for (let i = 0; i < content.length; i++) {
		const block = content[i];
		// A hole is no block: pi's map keeps it a hole and its filter drops it (the next block's
		// mapped predecessor is then the hole, which is no placeholder).
		if (block === undefined && !(i in content)) {
			previous = false;
			continue;
		}
		const image = isImage(block);
		const equal = image || isPlaceholder(block, placeholder);
		if (!(equal && previous)) result.push(image ? { type: "text", text: placeholder } : (block as Block));
		previous = equal;
	}
	return result;
}

/** Like {@link blockAsPi}, but only a placeholder that replaced an image and follows another such one is dropped. */
function blockKeepingUserText(content: readonly unknown[], rule: BlockRule): Block[] {
	const { isImage, placeholder } = rule;
	const result: Block[] = [];
	let previousWasImage = false;
	for (let i = 0; i < content.length; i++) {
		const block = content[i];
		const image = isImage(block);
		if (!image) result.push(block as Block);
		else if (!previousWasImage) result.push({ type: "text", text: placeholder });
		previousWasImage = image;
	}
	return result;
}
