// Players and their relations (CONTRACT, Players, following, invitations, blocking), as the
// screens need them: where a player's page is, which seats have one, the invitations list as the
// member socket keeps it, the online dots, and the refusals said in the player's words.

import { ApiError, errorText } from "./api";
import { tx } from "./i18n";
import type { FollowedPlayer, Invitation, MatchItem, MyGame, WsInvited } from "./types";

/** The path of a player's page. */
export function playerHref(player: string): string {
  return `/players/${encodeURIComponent(player)}`;
}

/** The player id a seat's name links to, or null: a bot's own seat and an erased member's have
 * none (a bot has no page); a seat a bot took over keeps its person's id and name. */
export function pageOf(seat: { player?: string | null; bot?: string | null; took_over?: boolean | null }): string | null {
  if (!seat.player) return null;
  if (seat.bot && !seat.took_over) return null;
  return seat.player;
}

/**
 * The invitations with one more, newest first: one per game (a game invited to again shows its
 * latest invitation, who sent it and the seats as they are now).
 */
export function mergeInvitations(list: readonly Invitation[], incoming: readonly Invitation[]): Invitation[] {
  const byGame = new Map<string, Invitation>();
  for (const item of [...list, ...incoming]) {
    const known = byGame.get(item.game.id);
    if (!known || Date.parse(item.at) >= Date.parse(known.at)) byGame.set(item.game.id, item);
  }
  return [...byGame.values()].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
}

/** The invitation an `invited` message makes; the socket's message carries no time: it is now. */
export function invitationOf(message: Pick<WsInvited, "game" | "by">, at: string): Invitation {
  return { game: message.game, by: message.by, at };
}

/** The invitations still worth showing: not to a game the member sits at or that left the lobby. */
export function openInvitations(list: readonly Invitation[], myGames: readonly Pick<MyGame, "id">[] = []): Invitation[] {
  const mine = new Set(myGames.map((g) => g.id));
  return list.filter((i) => i.game.status === "lobby" && i.game.seats_open > 0 && !mine.has(i.game.id));
}

/** One `online` message of the member socket, numbered in the order it came. */
export interface OnlineChange {
  player: string;
  online: boolean;
  serial: number;
}

/**
 * The followed players with the online changes that came after the list was read (serial above
 * ``since``): the list is the truth when it was read, each later message newer than it.
 */
export function withOnline(list: readonly FollowedPlayer[], changes: ReadonlyMap<string, OnlineChange>, since: number): FollowedPlayer[] {
  return list.map((p) => {
    const change = changes.get(p.player);
    return change && change.serial > since && change.online !== p.online ? { ...p, online: change.online } : p;
  });
}

/** Whether a player page's `online` (absent when hidden) has a later change from the socket. */
export function onlineNow(online: boolean | undefined, change: OnlineChange | undefined, since: number): boolean | undefined {
  if (online === undefined) return undefined; // hidden: a message cannot show what the page hides
  return change && change.serial > since ? change.online : online;
}

/** The online players first, then by name (the order a friends list is read in). */
export function friendsOrder(list: readonly FollowedPlayer[]): FollowedPlayer[] {
  return [...list].sort((a, b) => Number(b.online) - Number(a.online) || a.name.localeCompare(b.name));
}

/**
 * The people to offer in a waiting room's "Invite a player": those the member follows, then the
 * people of their recent matches (not bots, not the member, not erased), each once, leaving out
 * who sits at the table already.
 */
export function inviteCandidates(
  following: readonly Pick<FollowedPlayer, "player" | "name" | "online">[],
  recent: readonly MatchItem[],
  me: string | undefined,
  seated: readonly { player?: string | null }[],
): { player: string; name: string; online?: boolean; followed: boolean }[] {
  const skip = new Set<string>(seated.map((s) => s.player ?? "").filter(Boolean));
  if (me) skip.add(me);
  const out: { player: string; name: string; online?: boolean; followed: boolean }[] = [];
  const add = (player: string, name: string, followed: boolean, online?: boolean) => {
    if (skip.has(player)) return;
    skip.add(player);
    out.push({ player, name, followed, ...(online === undefined ? {} : { online }) });
  };
  for (const f of following) add(f.player, f.name, true, f.online);
  for (const match of recent) {
    for (const p of match.players) {
      if (p.bot || !p.player) continue;
      add(p.player, p.name, false);
    }
  }
  return out;
}

/** A refused invitation in the player's words. */
export function inviteErrorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.detail === "Blocked") {
      return tx("Blocked: one of you blocked the other, so this player cannot be invited.", "Bloccato: uno dei due ha bloccato l'altro, quindi non si può invitare.");
    }
    if (e.detail === "Game is full") return tx("Game is full: no seat is left for them.", "La partita è al completo: non c'è più un posto per loro.");
    if (e.detail === "Game already started") return tx("The game has already started.", "La partita è già iniziata.");
    if (e.detail === "Player not found") return tx("Player not found: they may have deleted their account.", "Giocatore non trovato: potrebbe aver eliminato l'account.");
  }
  return errorText(e);
}

/** A refused join in the player's words (a blocked player learns it only here). */
export function joinErrorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.detail === "Blocked") {
      return tx(
        "Blocked: you cannot sit at this table, because one of its players has blocked you, or you have blocked them.",
        "Bloccato: non puoi sederti a questo tavolo, perché uno dei suoi giocatori ti ha bloccato, o tu hai bloccato lui.",
      );
    }
    if (e.detail === "Game is full") return tx("Game is full: every seat was taken.", "La partita è al completo: tutti i posti sono presi.");
    if (e.status === 404) return tx("Game not found: it has started without you or expired.", "Partita non trovata: è iniziata senza di te o è scaduta.");
  }
  return errorText(e);
}
