// Italian and English. Every text of the app is written as tx(english, italian) where it is
// used, so no text can exist in one language only; the game's own words (scopa, settebello,
// primiera, napola, denari...) stay Italian in both. The language comes from the browser
// (navigator.languages) until the player picks one with the switch, which is remembered.

import { useEffect, useState } from "preact/hooks";

export type Lang = "en" | "it";

export const LANGS: readonly Lang[] = ["en", "it"];
const KEY = "tavolo:lang";

type Store = Pick<Storage, "getItem" | "setItem">;

function defaultStore(): Store | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled: the choice lasts as long as the page
  }
}

/** The remembered choice, else the first of the browser's languages we speak, else English. */
export function detectLang(stored: string | null, languages: readonly string[]): Lang {
  if (stored === "en" || stored === "it") return stored;
  for (const language of languages) {
    const base = language.toLowerCase().split("-")[0];
    if (base === "it" || base === "en") return base;
  }
  return "en";
}

function browserLanguages(): readonly string[] {
  const nav = globalThis.navigator;
  if (!nav) return [];
  return nav.languages?.length ? nav.languages : nav.language ? [nav.language] : [];
}

let current: Lang = detectLang(defaultStore()?.getItem(KEY) ?? null, browserLanguages());
const listeners = new Set<(lang: Lang) => void>();

export function lang(): Lang {
  return current;
}

/** Switch the whole app (and remember the choice). */
export function setLang(next: Lang, store: Store | null = defaultStore()): void {
  current = next;
  try {
    store?.setItem(KEY, next);
  } catch {
    /* storage full or disabled: the choice lasts as long as the page */
  }
  if (globalThis.document) document.documentElement.lang = next;
  listeners.forEach((listener) => listener(next));
}

/** The current language, re-rendering the component when it changes. */
export function useLang(): Lang {
  const [value, setValue] = useState(current);
  useEffect(() => {
    listeners.add(setValue);
    return () => void listeners.delete(setValue);
  }, []);
  return value;
}

/** The text in the current language. */
export function tx(en: string, it: string): string {
  return current === "it" ? it : en;
}

function locale(): string {
  return current === "it" ? "it-IT" : "en-GB";
}

/** "3 Dec 2026, 21:07" / "3 dic 2026, 21:07", in the browser's time zone. */
export function formatWhen(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** "+16", "−16", "0": an Elo change as players write it. */
export function formatDelta(delta: number): string {
  if (delta > 0) return `+${delta}`;
  if (delta < 0) return `−${Math.abs(delta)}`;
  return "0";
}

/** "a" before a name, "ad" before one starting with a ("Complimenti ad alice"): Italian only. */
export function aItalian(name: string): string {
  return /^[aàá]/i.test(name) ? `ad ${name}` : `a ${name}`;
}

/** "agli 11 punti", "ai 21 punti", "a 1 punto": the target of a match as Italian says it (the
 * article follows how the number is spoken: undici, otto, ottanta... start with a vowel). */
export function pointsItalian(n: number): string {
  if (n === 1) return "a 1 punto";
  const digits = String(n);
  const vowel = digits.startsWith("8") || digits === "11" || /^11\d{3}$/.test(digits);
  return `${vowel ? "agli" : "ai"} ${n} punti`;
}
