/**
 * The real pi-coding-agent 0.73.1 functions we must match, taken from the installed package.
 *
 * `convertToLlmWithBlockImages` is a closure inside `createAgentSession`; we get the real one by
 * creating an in-memory session (offline, faux model) and reading `session.agent.convertToLlm`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type Message, registerFauxProvider } from "@mariozechner/pi-ai";
import {
	AuthStorage,
	createAgentSession,
	ModelRegistry,
	SessionManager,
	SettingsManager,
	convertToLlm as upstreamConvertToLlm,
} from "@mariozechner/pi-coding-agent";

export { upstreamConvertToLlm };

export type UpstreamConvert = (messages: AgentMessage[]) => Message[];

/** Upstream's `convertToLlmWithBlockImages` with a live `blockImages` setting, plus the setter. */
export async function createUpstreamBlockImages(blockImages: boolean): Promise<{
	convert: UpstreamConvert;
	setBlockImages: (blocked: boolean) => void;
	dispose: () => void;
}> {
	const dir = mkdtempSync(join(tmpdir(), "ctl-upstream-"));
	const faux = registerFauxProvider();
	const settingsManager = SettingsManager.inMemory({ images: { blockImages } });
	const authStorage = AuthStorage.inMemory?.() ?? AuthStorage.create(join(dir, "auth.json"));
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		model: faux.getModel(),
		settingsManager,
		authStorage,
		modelRegistry: ModelRegistry.create(authStorage, join(dir, "models.json")),
		sessionManager: SessionManager.inMemory(dir),
	});
	const convert = session.agent.convertToLlm as UpstreamConvert;
	return {
		convert,
		setBlockImages: (blocked) => settingsManager.setBlockImages(blocked),
		dispose: () => {
			session.dispose?.();
			faux.unregister();
		},
	};
}
