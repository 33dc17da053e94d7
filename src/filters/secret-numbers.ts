/**
 * The secrets one `redactSecrets` plugin knows, each with its kind and, once it is first replaced,
 * its number: the same secret gets the same placeholder (`[REDACTED:aws-secret-access-key#1]`) in
 * every conversion of the session, so the model can tell two keys apart and the redacted prefix of a
 * growing history stays byte-stable from turn to turn.
 */

/** What one known secret is: the kind it was first known as, and its number once given one. */
interface Known {
	readonly kind: string;
	number: number;
}

/**
 * A plugin's secrets, by value.
 *
 * Contract: a value keeps the kind it was first {@link know}n as; {@link numberOf} gives it the next
 * number of that kind the first time it is asked, and the same number ever after. Numbers are
 * therefore given in the order secrets are first replaced: `redactSecrets` replaces in history order,
 * so in a history that only grows (pi's turns), the numbers follow the first occurrence of each
 * secret in the history, whichever turn the plugin first saw. Nothing is ever forgotten: a secret
 * known once is replaced wherever it occurs later in the session.
 *
 * @example
 * const numbers = new SecretNumbers();
 * numbers.know("wJalrXUtnFEMI…", "aws-secret-access-key");
 * numbers.numberOf("wJalrXUtnFEMI…"); // 1
 */
export class SecretNumbers {
	private readonly byValue = new Map<string, Known>();
	private readonly counts = new Map<string, number>();
	/** Grows by one each time a value is first known: the exact-value matcher is rebuilt when it changed. */
	private version = 0;

	/** Records `value` as a secret of `kind`, unless it is known already. */
	know(value: string, kind: string): void {
		if (this.byValue.has(value)) return;
		this.byValue.set(value, { kind, number: 0 });
		this.version++;
	}

	has(value: string): boolean {
		return this.byValue.has(value);
	}

	/** The kind `value` was first known as (`undefined` for a value not known). */
	kindOf(value: string): string | undefined {
		return this.byValue.get(value)?.kind;
	}

	/** The number of `value` within its kind, given now if it has none (0 for a value not known). */
	numberOf(value: string): number {
		const known = this.byValue.get(value);
		if (known === undefined) return 0;
		if (known.number === 0) {
			known.number = (this.counts.get(known.kind) ?? 0) + 1;
			this.counts.set(known.kind, known.number);
		}
		return known.number;
	}

	/** Every known value. */
	values(): IterableIterator<string> {
		return this.byValue.keys();
	}

	/** A number that changes whenever a value is first known. */
	get generation(): number {
		return this.version;
	}
}
