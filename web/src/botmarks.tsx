// How a seat shows who plays it: a small robot and the level for a bot, "(bot for alice)" for a
// bot standing in for a person who left, "offline" for a person with no page open at the table.
// The marks use no hooks, so they render (and are tested) as plain functions.

import { useEffect, useState } from "preact/hooks";
import { gameTypesCached } from "./api";
import { botForText, botLevels, isFirstMatch, levelName, seatState } from "./bots";
import { tx } from "./i18n";
import type { BotLevel, SeatOccupant } from "./types";

/** The robot drawn by code (no image files, no emoji font needed); its words are beside it. */
export function RobotIcon() {
  return (
    <svg class="robot-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <g fill="none" stroke="currentColor" stroke-linecap="round">
        <path d="M8 1.8v2" stroke-width="1.4" />
        <rect x="2.6" y="3.8" width="10.8" height="9" rx="2.4" stroke-width="1.5" />
        <path d="M5.8 10.5h4.4M1.2 7.4v2.6M14.8 7.4v2.6" stroke-width="1.3" />
      </g>
      <circle cx="8" cy="1.5" r="1.1" fill="currentColor" />
      <circle cx="6" cy="7.6" r="1.2" fill="currentColor" />
      <circle cx="10" cy="7.6" r="1.2" fill="currentColor" />
    </svg>
  );
}

/** A person's head and shoulders, drawn by code. */
export function PersonIcon() {
  return (
    <svg class="person-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <circle cx="8" cy="5.2" r="3" fill="currentColor" />
      <path d="M2.2 15c0-3.6 2.6-5.6 5.8-5.6s5.8 2 5.8 5.6Z" fill="currentColor" />
    </svg>
  );
}

// Where the long level names may break, with a hyphen, in a phone's narrow side seat.
const BREAKS: Record<string, string> = { Beginner: "Begin\u00adner", Principiante: "Princi\u00adpiante" };

/** "🤖 Expert" beside a bot's name: a robot and its level ("bot, Expert" to a screen reader). */
export function BotMark({ level, levels }: { level: string; levels?: BotLevel[] }) {
  const name = levelName(level, levels);
  return (
    <span class="bot-mark" data-testid="bot-mark" data-level={level} title={tx(`Bot, level ${name}`, `Bot, livello ${name}`)}>
      <RobotIcon />
      <span class="visually-hidden">bot, </span>
      <span class="bot-level">{BREAKS[name] ?? name}</span>
    </span>
  );
}

/** Every mark of one seat: the bot and its level, the bot standing in for a person, or offline. */
/** The `<option>`s of a bot-level `<select>`, weakest first, named in the page's language. */
export function BotLevelOptions({ levels }: { levels: BotLevel[] }) {
  return (
    <>
      {levels.map((l) => (
        <option key={l.id} value={l.id}>
          {levelName(l.id, levels)}
        </option>
      ))}
    </>
  );
}

export function SeatMarks({ player, levels, yours = false }: {
  player: SeatOccupant & { name: string; connected?: boolean };
  levels?: BotLevel[];
  /** The seat is the viewer's own: never "offline" (this page is here), "bot for you". */
  yours?: boolean;
}) {
  const state = seatState(player);
  if (state.kind === "bot") return <BotMark level={state.level} levels={levels} />;
  if (state.kind === "took_over") {
    return (
      <span class="bot-mark is-stand-in" data-testid="bot-mark" title={tx(`Bot, level ${levelName(state.level, levels)}`, `Bot, livello ${levelName(state.level, levels)}`)}>
        <RobotIcon />({botForText(state.name, yours)})
      </span>
    );
  }
  if (state.offline && !yours) {
    return (
      <span class="offline-mark" data-testid="offline-mark">
        <span class="offline-dot" aria-hidden="true" />
        {tx("offline", "non connesso")}
      </span>
    );
  }
  return null;
}

/** The bot levels of a game type (none until the types are read, or when it offers no bots). */
export function useBotLevels(gameType: string | undefined): BotLevel[] {
  const [levels, setLevels] = useState<BotLevel[]>([]);
  useEffect(() => {
    let live = true;
    gameTypesCached().then(
      (types) => live && setLevels(botLevels(types.find((t) => t.id === gameType))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [gameType]);
  return levels;
}

/** Whether the member is before their first finished match: null until known (or when the
 * history cannot be read, then treated as not). */
export function useFirstMatch(): boolean | null {
  const [first, setFirst] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    isFirstMatch().then(
      (value) => live && setFirst(value),
      () => live && setFirst(false),
    );
    return () => {
      live = false;
    };
  }, []);
  return first;
}
