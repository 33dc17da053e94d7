/** The assistant reply a session differential appends when its steps wrote none. */
export declare const FAUX_ASSISTANT: Record<string, unknown>;
