import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";

/** Upstream's `convertToLlmWithBlockImages` with a live `blockImages` setting, plus the setter. */
export declare function createUpstreamBlockImages(blockImages: boolean): Promise<{
	convert: (messages: AgentMessage[]) => Message[];
	setBlockImages: (blocked: boolean) => void;
	dispose: () => void;
}>;
