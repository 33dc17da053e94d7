/**
 * The conversion loop, written once: every history entry read, looked up in the role table (a `Map`)
 * and handed to {@link step}. `convert`, `run`, `explain`, tracked sources and `isolate` all run it;
 * what differs between them is the port the run gives it.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { LoopPort } from "./port.js";
import { customTypeOf, NONE, type RoleTable } from "./role-table.js";
import { step } from "./step.js";

/** Converts `input` with the converters of `table`; problems go through `port`. */
export function convertLoop(table: RoleTable, input: readonly unknown[], port: LoopPort): Message[] {
	const out: Message[] = [];
	const starts = port.starts;
	const length = input.length;
	for (let i = 0; i < length; i++) {
		const message = input[i];
		try {
			const role = message === null || typeof message !== "object" ? undefined : (message as AgentMessage).role;
			if (typeof role !== "string") {
				i = port.invalid(input, i, message);
				continue;
			}
			if (starts !== undefined) starts[i] = out.length;
			const entry = table.get(role);
			if (entry === undefined) port.unhandled(i, role, customTypeOf(message), NONE);
			else step(entry, message as AgentMessage, i, port, out);
		} catch (cause) {
			port.failed(i, message, cause);
		}
	}
	return out;
}
