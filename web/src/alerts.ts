// Telling a player their turn has come when they look away: the tab's title ("● Your turn"), a
// short tone (off until the player turns it on; the choice is remembered) and, on a phone, a
// short vibration. The tone is synthesized with WebAudio: no sound file to download.

import { useEffect, useState } from "preact/hooks";
import { tx } from "./i18n";

const SOUND_KEY = "tavolo:sound";
export const APP_TITLE = "tavolo · scopone scientifico";

type Store = Pick<Storage, "getItem" | "setItem">;

function defaultStore(): Store | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

let soundOn = defaultStore()?.getItem(SOUND_KEY) === "on";
const listeners = new Set<(on: boolean) => void>();

export function soundEnabled(): boolean {
  return soundOn;
}

/** Turn the tone on or off, and remember it. */
export function setSound(on: boolean, store: Store | null = defaultStore()): void {
  soundOn = on;
  try {
    store?.setItem(SOUND_KEY, on ? "on" : "off");
  } catch {
    /* storage disabled: the choice lasts as long as the page */
  }
  listeners.forEach((l) => l(on));
}

export function useSound(): boolean {
  const [on, setOn] = useState(soundOn);
  useEffect(() => {
    listeners.add(setOn);
    return () => void listeners.delete(setOn);
  }, []);
  return on;
}

/** The tab's title: "● Your turn · tavolo" on your turn, the app's name otherwise. */
export function turnTitle(yourTurn: boolean): string {
  return yourTurn ? `● ${tx("Your turn", "Tocca a te")} · tavolo` : APP_TITLE;
}

let audio: AudioContext | null = null;

/** Two short notes, quiet. Browsers allow sound only after the player touched the page once,
 * which turning the sound on is. */
export function playTone(): void {
  try {
    const Context = globalThis.AudioContext ?? (globalThis as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Context) return;
    audio ??= new Context();
    const ctx = audio;
    if (ctx.state === "suspended") void ctx.resume();
    const start = ctx.currentTime + 0.02;
    [660, 880].forEach((freq, i) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const t = start + i * 0.14;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.18, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.13);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + 0.14);
    });
  } catch {
    /* no audio here: the title and the vibration still tell */
  }
}

/** A short buzz on a phone (a device with a coarse pointer that can vibrate). */
export function vibrate(): void {
  try {
    if (typeof navigator.vibrate !== "function") return;
    if (!globalThis.matchMedia?.("(pointer: coarse)").matches) return;
    navigator.vibrate(120);
  } catch {
    /* not allowed yet (no touch on the page so far): nothing to do */
  }
}

/**
 * The alerts of a table: the title while it is your turn, and when your turn begins, the tone
 * (if on) and a vibration. `turnKey` changes with every new turn of yours (null when it is not
 * your turn), so one long turn alerts once.
 */
export function useTurnAlerts(turnKey: string | null): void {
  const yourTurn = turnKey !== null;
  useEffect(() => {
    document.title = turnTitle(yourTurn);
  }, [yourTurn]);
  useEffect(() => () => void (document.title = APP_TITLE), []);
  useEffect(() => {
    if (turnKey === null) return;
    if (soundOn) playTone();
    vibrate();
  }, [turnKey]);
}
