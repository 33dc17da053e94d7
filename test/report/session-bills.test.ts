import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type BillsSource, billsOfRequest } from "../../src/report/session-bills.js";
import { readSession } from "../../src/session/index.js";
import { DEMO, root } from "../fixtures/sessions/run-cli.js";

/** The demo's session as one read with its tree gives it. */
function demoInput(): BillsSource {
	const read = readSession(readFileSync(`${root}/${DEMO}`, "utf8"), { tree: true });
	if (read.tree === undefined) throw new Error("the demo was read without its tree");
	return { session: read.tree.session, file: "demo.jsonl" };
}

describe("billsOfRequest", () => {
	it("should give the ledger of the one read and the calibrated count of the request", async () => {
		const bills = await billsOfRequest(demoInput(), [], 10, undefined, "report");
		expect(bills.ledger?.rows).toHaveLength(5);
		expect(bills.figures.calibrated?.label).toBe("calibrated on 5 billed requests");
		expect(bills.why).toBeUndefined();
	});

	it.each([
		["view", "the view calibrates on"],
		["report", "the report charts"],
	] as const)(
		"should not make the %s's ledger of more requests than its limit, and say so and where to look",
		async (reader, what) => {
			const bills = await billsOfRequest(demoInput(), [], 10, undefined, reader, 4);
			expect(bills.ledger).toBeUndefined();
			expect(bills.figures.calibrated).toBeNull();
			expect(bills.figures.note).toContain(
				`the session records 5 requests, more than ${what} (4); convert-to-llm --requests gives each one's calibrated and billed tokens`,
			);
		},
	);
});
