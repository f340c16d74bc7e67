// A player's name as a link to their page (/players/<id>) wherever a seat, a match row, a
// leaderboard entry or a chat message carries a player id; a bot, or an erased member, has no
// page, so their name stays text.

import type { ComponentChildren } from "preact";
import { pageOf, playerHref } from "./friends";
import { tx } from "./i18n";

export function PlayerLink({ who, children, class: className = "", title, newTab = false }: {
  /** The seat, row or entry: its `player` id (absent for a bot) and `bot`, `took_over`. */
  who: { player?: string | null; bot?: string | null; took_over?: boolean | null };
  children: ComponentChildren;
  class?: string;
  /** The whole name, for a name the layout may cut short. */
  title?: string;
  /** At a table being played: the page opens beside it, so the table (and its turn) stays. */
  newTab?: boolean;
}) {
  const player = pageOf(who);
  if (!player) return <span class={className || undefined} title={title}>{children}</span>;
  return (
    <a
      href={playerHref(player)}
      class={`player-link${className ? ` ${className}` : ""}`}
      title={title}
      {...(newTab ? { target: "_blank", rel: "noopener" } : {})}
    >
      {children}
    </a>
  );
}

/** A round dot for whether a player is online: green online, grey offline, with the word for
 * screen readers (and as a tooltip); ``decorative`` where the words beside it say it already.
 * Nothing when the player hides it. */
export function OnlineDot({ online, decorative = false }: { online: boolean | null | undefined; decorative?: boolean }) {
  if (online === undefined || online === null) return null;
  const label = online ? tx("online", "online") : tx("offline", "non in linea");
  return (
    <span class={`online-dot${online ? " is-online" : ""}`} role={decorative ? undefined : "img"}
      aria-label={decorative ? undefined : label} aria-hidden={decorative ? "true" : undefined}
      title={label} data-testid="online-dot" data-online={String(online)} />
  );
}
