/** The Chromium to launch and where it was found (see find-browser.mjs). */
export function findChromium(): Promise<{ path: string; source: string }>;
