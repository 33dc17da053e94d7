/**
 * Upstream pi 0.73.1's `convertToLlmWithBlockImages`, the real one: it is a closure inside
 * `createAgentSession`, so we create an in-memory session (offline, faux model) and read
 * `session.agent.convertToLlm`. Plain JavaScript so that both the tests and `npm run bench` use it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerFauxProvider } from "@mariozechner/pi-ai";
import {
	AuthStorage,
	createAgentSession,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";

export async function createUpstreamBlockImages(blockImages) {
	const dir = mkdtempSync(join(tmpdir(), "ctl-upstream-"));
	const faux = registerFauxProvider();
	const settingsManager = SettingsManager.inMemory({ images: { blockImages } });
	const authStorage = AuthStorage.create(join(dir, "auth.json"));
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		model: faux.getModel(),
		settingsManager,
		authStorage,
		modelRegistry: ModelRegistry.create(authStorage, join(dir, "models.json")),
		sessionManager: SessionManager.inMemory(dir),
	});
	return {
		convert: session.agent.convertToLlm,
		setBlockImages: (blocked) => settingsManager.setBlockImages(blocked),
		dispose: () => {
			session.dispose?.();
			faux.unregister();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
