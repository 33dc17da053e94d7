/** Writes dist/pi-0.73/ (the pi 0.73.1 declarations) from the declarations in `dist`. */
export function scopeTypes(dist?: string): void;
