// The member socket /ws/me (CONTRACT, Players; docs/websocket.md): one per tab while logged in,
// reconnected with the table socket's backoff. It keeps what happens away from a table: the
// invitations (read with GET /api/me/invitations at every (re)connect, for what a dropped socket
// missed, then kept by `invited`), the invitations to show as a notice, and the online changes
// of the players the member follows (the screens apply them to the lists they read).

import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "./api";
import { serverOffset } from "./clock";
import { invitationOf, mergeInvitations, type OnlineChange } from "./friends";
import { GameSocket, SERVICE_RESTART, type ConnectionStatus, type SocketDeps } from "./socket";
import type { Invitation, MemberMessage, MyGame } from "./types";

export interface MemberState {
  /** The invitations that hold, newest first; null until first read. */
  invitations: Invitation[] | null;
  /** The invitations that arrived live and were not dismissed yet, newest first (the notice). */
  notices: Invitation[];
  /** The latest online change of each player, by player id. */
  online: ReadonlyMap<string, OnlineChange>;
  /** How many messages came: an online change's serial, and what an invitations read is "as of". */
  serial: number;
  /** The serial at which each game's invitation last arrived live. */
  arrived: ReadonlyMap<string, number>;
  /** Bumped at each (re)connect: a screen reads its list again, for the changes a drop missed. */
  connects: number;
  /** `your_turn` of a turn-based game the member has no table open at, newest first. */
  turns: MyGame[];
  status: ConnectionStatus;
}

export const initialMember: MemberState = {
  invitations: null,
  notices: [],
  online: new Map(),
  serial: 0,
  arrived: new Map(),
  connects: 0,
  turns: [],
  status: "closed",
};

export type MemberAction =
  /** GET /api/me/invitations answered; `asOf` is the serial when it was asked. */
  | { type: "invitations"; invitations: Invitation[]; asOf: number }
  | { type: "message"; message: MemberMessage; at: string }
  /** The notice of this game's invitation is closed (the invitation stays listed). */
  | { type: "dismiss"; game: string }
  /** The member joined this game, or it can no longer be joined: its invitation goes. */
  | { type: "forget"; game: string }
  | { type: "status"; status: ConnectionStatus };

const MAX_NOTICES = 3;

export function reduceMember(state: MemberState, action: MemberAction): MemberState {
  switch (action.type) {
    case "invitations": {
      // The read is the truth as of when it was asked; an invitation that came live since stays.
      const later = (state.invitations ?? []).filter((i) => (state.arrived.get(i.game.id) ?? -1) > action.asOf);
      return { ...state, invitations: mergeInvitations(action.invitations, later) };
    }
    case "message": {
      const message = action.message;
      const serial = state.serial + 1;
      if (message.type === "invited") {
        const invitation = invitationOf(message, action.at);
        return {
          ...state,
          serial,
          invitations: mergeInvitations(state.invitations ?? [], [invitation]),
          notices: [invitation, ...state.notices.filter((n) => n.game.id !== message.game.id)].slice(0, MAX_NOTICES),
          arrived: new Map([...state.arrived, [message.game.id, serial]]),
        };
      }
      if (message.type === "online") {
        const online = new Map(state.online);
        online.set(message.player, { player: message.player, online: message.online, serial });
        return { ...state, serial, online };
      }
      if (message.type === "your_turn") {
        return { ...state, serial, turns: [message.game, ...state.turns.filter((g) => g.id !== message.game.id)].slice(0, MAX_NOTICES) };
      }
      return state; // a type this app does not know yet
    }
    case "dismiss":
      return {
        ...state,
        notices: state.notices.filter((n) => n.game.id !== action.game),
        turns: state.turns.filter((g) => g.id !== action.game),
      };
    case "forget":
      return {
        ...state,
        invitations: state.invitations && state.invitations.filter((i) => i.game.id !== action.game),
        notices: state.notices.filter((n) => n.game.id !== action.game),
        turns: state.turns.filter((g) => g.id !== action.game),
      };
    case "status": {
      const connected = action.status === "open" && state.status !== "open";
      return { ...state, status: action.status, connects: state.connects + (connected ? 1 : 0) };
    }
  }
}

export function memberSocketUrl(loc: { protocol: string; host: string } = location): string {
  const scheme = loc.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${loc.host}/ws/me`;
}

export interface MemberDeps {
  invitations(): Promise<Invitation[]>;
  /** Whether the session still holds (GET /api/me); false stops the socket for good. */
  stillLoggedIn(): Promise<boolean>;
  now(): string;
  socket?: SocketDeps;
}

const browserMemberDeps: MemberDeps = {
  invitations: () => api.invitations(),
  stillLoggedIn: () => api.me().then(() => true, (e) => !(e instanceof ApiError && e.status === 401)),
  // The server's time, as the invitations it lists carry (their age is said against it).
  now: () => new Date(Date.now() + serverOffset()).toISOString(),
};

/** The tab's member feed: the socket, the state, and who listens to it. */
export class MemberFeed {
  private state: MemberState = initialMember;
  private readonly listeners = new Set<(state: MemberState) => void>();
  private socket: GameSocket<MemberMessage> | null = null;

  constructor(private readonly deps: MemberDeps = browserMemberDeps, private readonly url: () => string = memberSocketUrl) {}

  get current(): MemberState {
    return this.state;
  }

  dispatch(action: MemberAction): void {
    const before = this.state;
    this.state = reduceMember(before, action);
    if (this.state.connects !== before.connects) this.readInvitations();
    if (this.state !== before) this.listeners.forEach((l) => l(this.state));
  }

  subscribe(listener: (state: MemberState) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Opens the socket (once; a second call changes nothing). */
  start(): void {
    if (this.socket) return;
    const socket = new GameSocket<MemberMessage>(this.url(), {
      onMessage: (message) => this.dispatch({ type: "message", message, at: this.deps.now() }),
      onStatus: (status) => this.dispatch({ type: "status", status }),
      onClose: async (code) => {
        if (code === SERVICE_RESTART) return true;
        // A refused upgrade shows as 1006: the session may be gone, which only the REST side says.
        try {
          return await this.deps.stillLoggedIn();
        } catch {
          return true;
        }
      },
    }, this.deps.socket);
    this.socket = socket;
    socket.start();
  }

  /** Closes the socket (logged out) and forgets everything. */
  stop(): void {
    this.socket?.stop();
    this.socket = null;
    this.state = initialMember;
    this.listeners.forEach((l) => l(this.state));
  }

  /** Skip the backoff's wait (the browser came back online). */
  retryNow(): void {
    this.socket?.retryNow();
  }

  /** Read the invitations again (the start page opened; a join was refused). */
  readInvitations(): void {
    const asOf = this.state.serial;
    this.deps.invitations().then(
      (invitations) => this.dispatch({ type: "invitations", invitations, asOf }),
      () => undefined, // the list stays as it was; the next connect reads it again
    );
  }
}

/** The tab's one feed. */
export const memberFeed = new MemberFeed();

/** Keeps the tab's member socket open while ``loggedIn``. */
export function useMemberSocket(loggedIn: boolean, feed: MemberFeed = memberFeed): void {
  useEffect(() => {
    if (!loggedIn) return;
    feed.start();
    const online = () => feed.retryNow();
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      feed.stop();
    };
  }, [loggedIn, feed]);
}

/** The member feed's state, re-rendering at each change. */
export function useMember(feed: MemberFeed = memberFeed): MemberState {
  const [state, setState] = useState(feed.current);
  useEffect(() => {
    setState(feed.current);
    return feed.subscribe(setState);
  }, [feed]);
  return state;
}
