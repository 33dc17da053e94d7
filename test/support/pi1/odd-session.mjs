/** pi 1.6.0's `SessionManager.open` on given file texts (see ../pi-open.mjs), for the odd-lines differential. */
import * as pi from "@earendil-works/pi-coding-agent";
import { openWith } from "../pi-open.mjs";

export function open({ files }) {
	return openWith(pi, files);
}
