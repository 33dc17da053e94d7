/**
 * A consumer declares a new role by merging into pi-agent-core's `CustomAgentMessages`, as an
 * extension would, and registers a converter typed for it.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { UserMessage } from "@earendil-works/pi-ai";
import { describe, expectTypeOf, it } from "vitest";
import type { AgentRole, BashExecutionMessage, Converter, MessageOfRole, Plugin, Registry } from "../src/index.js";

/** A ticket an extension tracks; the model sees its title and status. */
interface TicketMessage {
	role: "ticket";
	ticketId: string;
	title: string;
	status: "open" | "closed";
	timestamp: number;
}

declare module "@earendil-works/pi-agent-core" {
	interface CustomAgentMessages {
		ticket: TicketMessage;
	}
}

declare const registry: Registry;

const ticketToUser = (m: TicketMessage): UserMessage => ({
	role: "user",
	content: `Ticket ${m.ticketId} (${m.status}): ${m.title}`,
	timestamp: m.timestamp,
});

describe("a role declared by declaration merging", () => {
	it("should join AgentRole and AgentMessage with its own message type", () => {
		expectTypeOf<"ticket">().toExtend<AgentRole>();
		expectTypeOf<TicketMessage>().toExtend<AgentMessage>();
		expectTypeOf<MessageOfRole<"ticket">>().toEqualTypeOf<TicketMessage>();
		// The built-in roles are still there.
		expectTypeOf<MessageOfRole<"bashExecution">>().toEqualTypeOf<BashExecutionMessage>();
	});

	it("should give its converter a TicketMessage", () => {
		registry.register(
			"ticket",
			(m) => {
				expectTypeOf(m).toEqualTypeOf<TicketMessage>();
				return m.status === "closed" ? null : ticketToUser(m);
			},
			{ name: "ticket-ext" },
		);
		const converter: Converter<"ticket"> = ticketToUser;
		expectTypeOf(converter).parameter(0).toEqualTypeOf<TicketMessage>();
	});

	it("should be registered from a plugin like any built-in role", () => {
		const ticketPlugin: Plugin = {
			name: "ticket-ext",
			apply(r) {
				r.register("ticket", ticketToUser, { name: "ticket-ext", stage: -100 });
			},
		};
		expectTypeOf(registry.use(ticketPlugin)).toEqualTypeOf<Registry>();
	});

	it("should let a history hold it", () => {
		const history: AgentMessage[] = [
			{ role: "ticket", ticketId: "T-1", title: "Fix the parser", status: "open", timestamp: 0 },
		];
		registry.convert(history);
		// @ts-expect-error: a ticket needs its fields
		const incomplete: AgentMessage = { role: "ticket", timestamp: 0 };
		expectTypeOf(incomplete).toEqualTypeOf<AgentMessage>();
	});

	it("should reject a converter reading a field the role lacks", () => {
		// @ts-expect-error: a ticket has no command
		registry.register("ticket", (m) => ({ role: "user", content: m.command, timestamp: m.timestamp }), {
			name: "x",
		});
	});

	it("should reject a converter returning the TicketMessage itself", () => {
		// @ts-expect-error: a TicketMessage is not a pi-ai Message
		registry.register("ticket", (m) => m, { name: "x" });
	});

	it("should reject customType on it", () => {
		// @ts-expect-error: customType applies to role "custom" only
		registry.register("ticket", ticketToUser, { name: "x", customType: "ticket" });
	});

	it("should not accept a converter of another role", () => {
		const forBash: Converter<"bashExecution"> = () => null;
		// @ts-expect-error: a bash converter does not take tickets
		registry.register("ticket", forBash, { name: "x" });
	});
});
