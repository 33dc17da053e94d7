/**
 * pi 1.6.0's conversion, for the differential: `convertToLlm` from `@earendil-works/pi-coding-agent`,
 * and the real `convertToLlmWithBlockImages` closure, taken from an in-memory `createAgentSession`
 * (offline: a faux provider registered on a `ModelRuntime` in a temp dir) with its live setting.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxProvider } from "@earendil-works/pi-ai";
import {
	convertToLlm,
	createAgentSession,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { decode } from "./codec.mjs";
import { deepFreeze, sharing } from "./identity.mjs";

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

let session;

/** The real closure and its settings, made once per child. */
async function blockImagesSession() {
	if (session) return session;
	const dir = mkdtempSync(join(tmpdir(), "ctl-pi1-upstream-"));
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({
		authPath: join(dir, "auth.json"),
		modelsPath: join(dir, "models.json"),
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory({ images: { blockImages: true } });
	const created = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		model: faux.getModel(),
		modelRuntime,
		settingsManager,
		sessionManager: SessionManager.inMemory(dir),
	});
	const wrapper = created.session.agent.convertToLlm;
	if (wrapper === convertToLlm || !String(wrapper).includes("getBlockImages")) {
		throw new Error("session.agent.convertToLlm is not pi's convertToLlmWithBlockImages closure");
	}
	process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
	session = { wrapper, settingsManager, dispose: () => created.session.dispose() };
	return session;
}

/**
 * pi's `convertToLlmWithBlockImages` on each case's history, once per entry of its `toggles`, with
 * the live setting (`settingsManager.setBlockImages`) set to that entry before the call.
 */
export async function blockImages({ encoded, freeze = false }) {
	const { wrapper, settingsManager } = await blockImagesSession();
	return encoded.map((tree) => {
		const { history, toggles } = decode(tree);
		return toggles.map((blocked) => {
			settingsManager.setBlockImages(blocked);
			if (settingsManager.getBlockImages() !== blocked) throw new Error("setBlockImages did not take");
			return run(wrapper, history, freeze);
		});
	});
}
