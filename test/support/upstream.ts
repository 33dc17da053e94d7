/**
 * The real pi-coding-agent 0.73.1 functions we must match, taken from the installed package.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { convertToLlm as upstreamConvertToLlm } from "@mariozechner/pi-coding-agent";

export { createUpstreamBlockImages } from "./upstream-session.mjs";
export { upstreamConvertToLlm };

export type UpstreamConvert = (messages: AgentMessage[]) => Message[];
