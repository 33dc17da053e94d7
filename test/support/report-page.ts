/** Reading a report page back in tests: its data blocks, joined as the page's script joins them. */
import type { ReportData, ReportList } from "../../src/report/report-types.js";

const OPEN = /<script type="application\/json" data-part="([a-z]+)">/g;

/** Each data block of `page`: its part and its JSON text, in order. */
export function dataBlocks(page: string): { part: string; text: string }[] {
	const blocks: { part: string; text: string }[] = [];
	for (const match of page.matchAll(OPEN)) {
		const start = (match.index as number) + match[0].length;
		blocks.push({ part: match[1] as string, text: page.slice(start, page.indexOf("</script>", start)) });
	}
	return blocks;
}

/** The report's data, as the page reads it. */
export function reportDataOf(page: string): ReportData {
	let data = { output: [], history: [], rows: [], taps: [], requests: [] } as unknown as ReportData;
	for (const { part, text } of dataBlocks(page)) {
		const value = JSON.parse(text);
		if (part === "head") data = { ...data, ...value };
		else for (const item of value) (data[part as ReportList] as unknown[]).push(item);
	}
	return data;
}

/** The report's data as one JSON text. */
export const dataText = (page: string): string => JSON.stringify(reportDataOf(page));

/** The page of `input`, written to a string (small reports only). */
export async function pageOf(
	input: import("../../src/report/report-data.js").ReportInput,
	redaction?: import("../../src/report/report-redaction.js").ReportRedaction,
): Promise<string> {
	const { writeHtmlReport } = await import("../../src/report/html-report.js");
	const pieces: string[] = [];
	await writeHtmlReport(input, { out: { write: (text) => pieces.push(text) } }, redaction);
	return pieces.join("");
}
