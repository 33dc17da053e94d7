/** A markdown table with its columns padded, as Biome formats one (so `biome check` leaves it alone). */
export function markdownTable(header, rows) {
	const all = [header, ...rows];
	const widths = header.map((_, column) => Math.max(3, ...all.map((row) => [...row[column]].length)));
	const line = (row) =>
		`| ${row.map((cell, column) => cell + " ".repeat(widths[column] - [...cell].length)).join(" | ")} |`;
	return [line(header), `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`, ...rows.map(line)].join("\n");
}
