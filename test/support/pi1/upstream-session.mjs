/**
 * pi 1.6.0's `convertToLlmWithBlockImages`, the real one: like 0.73.1's (test/support/upstream-session.mjs)
 * it is a closure inside `createAgentSession`, so we create an in-memory session and read
 * `session.agent.convertToLlm`. pi 1.x has no `AuthStorage`/`ModelRegistry`: the session takes a
 * `ModelRuntime` (files in a temp dir, no network), on which the faux provider (`fauxProvider()`)
 * is registered. Runs in the pi 1.x child only (Node >= 22.19).
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

/** The closure with its live `blockImages` setting (initially `blockImages`), the setter, and a disposer. */
export async function createUpstreamBlockImages(blockImages) {
	const dir = mkdtempSync(join(tmpdir(), "ctl-pi1-upstream-"));
	const faux = fauxProvider();
	const modelRuntime = await ModelRuntime.create({
		authPath: join(dir, "auth.json"),
		modelsPath: join(dir, "models.json"),
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory({ images: { blockImages } });
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		model: faux.getModel(),
		modelRuntime,
		settingsManager,
		sessionManager: SessionManager.inMemory(dir),
	});
	const convert = session.agent.convertToLlm;
	// The closure, not pi's plain convertToLlm: only the closure reads the setting.
	if (convert === convertToLlm || !String(convert).includes("getBlockImages")) {
		throw new Error("session.agent.convertToLlm is not pi's convertToLlmWithBlockImages closure");
	}
	return {
		convert,
		setBlockImages: (blocked) => {
			settingsManager.setBlockImages(blocked);
			if (settingsManager.getBlockImages() !== blocked) throw new Error("setBlockImages did not take");
		},
		dispose: () => {
			session.dispose?.();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
