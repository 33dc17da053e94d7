/**
 * Builders the registry test files share: a consumer-declared role (`auditNote`), bash and custom
 * messages, a tool result, a history holding values the types forbid, and a bash converter.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { type BashExecutionMessage, type CustomMessage, createCustomMessage } from "../../src/index.js";
import { bashExecution, T0, user } from "./fixtures.js";

/** A role declared by a consumer, as an extension would (see also `custom-role.test-d.ts`). */
export interface AuditNoteMessage {
	role: "auditNote";
	note: string;
	severity: "info" | "warn";
	timestamp: number;
}

declare module "@earendil-works/pi-agent-core" {
	interface CustomAgentMessages {
		auditNote: AuditNoteMessage;
	}
}

export function bash(command: string, overrides: Partial<BashExecutionMessage> = {}): BashExecutionMessage {
	return bashExecution({ command, output: "ok", ...overrides });
}

export function custom(customType: string, content = "note"): CustomMessage {
	return createCustomMessage(customType, content, true, undefined, T0);
}

export function toolResult(text: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: "call-1",
		toolName: "read",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: T0,
	};
}

/** A history that holds values the types forbid (as a stored session or a buggy plugin may). */
export function history(...entries: unknown[]): AgentMessage[] {
	return entries as AgentMessage[];
}

/** A converter of `bashExecution` to one user text message, as a plugin would write it. */
export const bashToUser = (m: BashExecutionMessage): UserMessage => user(`ran ${m.command}`, m.timestamp);
