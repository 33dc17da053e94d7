/**
 * pi 1.6.0's conversion, for the differential: `convertToLlm` from `@earendil-works/pi-coding-agent`,
 * and the real `convertToLlmWithBlockImages` closure (upstream-session.mjs) with its live setting.
 */
import { convertToLlm } from "@earendil-works/pi-coding-agent";
import { decode } from "./codec.mjs";
import { deepFreeze, sharing } from "./identity.mjs";
import { createUpstreamBlockImages } from "./upstream-session.mjs";

/** One conversion: pi's output and what it passed on by reference, or what pi threw. */
function run(fn, history, freeze) {
	if (freeze) deepFreeze(history);
	try {
		const output = fn(history);
		return { output, sharing: sharing(history, output) };
	} catch (error) {
		return { threw: `${error?.name ?? "Error"}: ${error?.message ?? String(error)}` };
	}
}

/**
 * pi's `convertToLlm` on each case's history (deep-frozen first when `freeze`). Each case arrives
 * encoded on its own (`codec.encode`), as the vitest side encoded it, and is decoded here.
 */
export function convert({ encoded, freeze = false }) {
	return encoded.map((tree) => run(convertToLlm, decode(tree).history, freeze));
}

/** The real closure, made once per child (blocking on), and disposed of when the child exits. */
let upstream;
async function blockImagesSession() {
	if (upstream) return upstream;
	upstream = await createUpstreamBlockImages(true);
	process.on("exit", () => upstream.dispose());
	return upstream;
}

/**
 * pi's `convertToLlmWithBlockImages` on each case's history, once per entry of its `toggles`, with
 * the live setting (`settingsManager.setBlockImages`) set to that entry before the call.
 */
export async function blockImages({ encoded, freeze = false }) {
	const { convert: wrapper, setBlockImages } = await blockImagesSession();
	return encoded.map((tree) => {
		const { history, toggles } = decode(tree);
		return toggles.map((blocked) => {
			setBlockImages(blocked);
			return run(wrapper, history, freeze);
		});
	});
}
