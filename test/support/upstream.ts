/**
 * The real pi-coding-agent 0.73.1 functions we must match, taken from the installed package.
 *
 * Typed with pi 1.x's types, the ones the sources are written against: 0.73.1's `AgentMessage` and
 * `Message` are subsets of 1.x's (no `system` role), so the oracle is called with the histories the
 * tests generate and its output compared with ours as data.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { convertToLlm as convertToLlm073 } from "@mariozechner/pi-coding-agent";

export { createUpstreamBlockImages } from "./upstream-session.mjs";

export type UpstreamConvert = (messages: readonly AgentMessage[]) => Message[];

/** pi-coding-agent 0.73.1's `convertToLlm`. */
export const upstreamConvertToLlm = convertToLlm073 as unknown as UpstreamConvert;
