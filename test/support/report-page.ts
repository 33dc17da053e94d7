/** Reading a report page back in tests: the JSON text of its data block. */
export function dataText(page: string): string {
	const open = '<script type="application/json" id="report-data">';
	const start = page.indexOf(open) + open.length;
	return page.slice(start, page.indexOf("</script>", start));
}
