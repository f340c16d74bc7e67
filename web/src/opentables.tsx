// Finding a table with people you do not know: "Play now" (live, or daily when picked: a seat at the open table nearest your
// rating, or a new open table), and the open tables, live, each with its rules, who sits there,
// the seats open, its rating and a button to sit down.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, errorText, gameTypesCached } from "./api";
import { creatorSeat, displayName } from "./bots";
import { SeatMarks } from "./botmarks";
import { rulesText, seatsOpenText } from "./describe";
import { tx } from "./i18n";
import { useOpenGames, type FeedDeps } from "./opengames";
import { navigate } from "./router";
import { fieldsOf } from "./schemaform";
import { Empty, Failed, Loading } from "./status";
import { paceChoiceText, type Pace } from "./tables";
import type { GameType, OpenGame, QuickMatchRequest } from "./types";

/** The server's reasons a player can act on, in their words; any other is the server's detail. */
export function findTableError(e: unknown): string {
  if (e instanceof ApiError && e.detail === "Too many open games") {
    return tx(
      "You already have 5 open tables waiting for players: sit at one of them, or leave one first.",
      "Hai già 5 tavoli aperti in attesa di giocatori: siediti a uno di quelli, o prima lasciane uno.",
    );
  }
  if (e instanceof ApiError && e.detail === "Too many daily games") {
    return tx(
      "You already sit at 20 daily games that are not over: finish one before you take another.",
      "Sei già seduto a 20 partite giornaliere non finite: finiscine una prima di prenderne un'altra.",
    );
  }
  if (e instanceof ApiError && (e.status === 404 || e.detail === "Game is full")) {
    return tx(
      "That table has just filled up or closed. Pick another one, or press Play now.",
      "Quel tavolo si è appena riempito o è stato chiuso. Scegline un altro, o premi Gioca ora.",
    );
  }
  return errorText(e);
}

/** "1 open table", "3 open tables": what the list's live region says when it changes. */
export function openTablesSummary(games: OpenGame[] | null): string {
  if (games === null) return "";
  if (games.length === 0) return tx("No open tables right now", "Nessun tavolo aperto in questo momento");
  return games.length === 1 ? tx("1 open table", "1 tavolo aperto") : tx(`${games.length} open tables`, `${games.length} tavoli aperti`);
}

/** Whose table it is, for the Join button's name: the creator (the lowest-seated person). */
export function hostName(game: Pick<OpenGame, "players">): string {
  const seat = creatorSeat(game.players);
  const host = game.players.find((p) => p.seat === seat);
  return host ? displayName(host) : "";
}

/** "Join carol's table": a table's button name, with its code when another table has the same. */
function joinNames(games: OpenGame[]): Record<string, string> {
  const plain = (g: OpenGame) => tx(`Join ${hostName(g)}'s table`, `Siediti al tavolo di ${hostName(g)}`);
  const count = new Map<string, number>();
  for (const g of games) count.set(plain(g), (count.get(plain(g)) ?? 0) + 1);
  return Object.fromEntries(
    games.map((g) => [g.id, (count.get(plain(g)) ?? 0) > 1 ? `${plain(g)} ${g.join_code}` : plain(g)]),
  );
}

export function OpenTableItem({ game, joinName, typeName, titles, busy, onJoin }: {
  game: OpenGame;
  joinName: string;
  /** The game type's name, shown only when the site has several. */
  typeName?: string;
  /** The titles of the type's options, for the options this page has no words of its own for. */
  titles?: Record<string, string>;
  busy: boolean;
  onJoin: (game: OpenGame) => void;
}) {
  const yours = game.players.some((p) => p.is_you);
  const about = `open-table-${game.id}`;
  return (
    <li class={`open-table${yours ? " is-yours" : ""}`} data-testid="open-table">
      <div class="open-table-about" id={about}>
        <p class="open-table-rules">
          {typeName && <span class="open-table-type">{typeName}: </span>}
          {/* The pace from the item itself: a game made before the option has none in its options. */}
          {rulesText({ ...game.options, pace: game.pace ?? game.options.pace }, titles)}
        </p>
        <p class="open-table-players">
          {[0, 1, 2, 3].map((seat) => {
            const p = game.players.find((x) => x.seat === seat);
            return (
              <span key={seat} class={`chip team-${seat % 2 === 0 ? "A" : "B"}${p ? "" : " is-open"}`}>
                {p ? `${displayName(p)}${p.is_you ? tx(" (you)", " (tu)") : ""}` : tx("open", "libero")}
                {p && <> <SeatMarks player={p} yours={p.is_you} /></>}
              </span>
            );
          })}
        </p>
        <p class="open-table-facts">
          <span>{seatsOpenText(game.seats_open)}</span>
          <span>{tx(`Average rating ${game.rating}`, `Elo medio ${game.rating}`)}</span>
        </p>
      </div>
      {yours ? (
        <a href={`/games/${game.id}`} class="button secondary open-table-action" aria-describedby={about}>
          {tx("Your table", "Il tuo tavolo")}
        </a>
      ) : (
        <button
          type="button"
          class="button open-table-action"
          aria-label={joinName}
          aria-describedby={about}
          disabled={busy}
          onClick={() => onJoin(game)}
        >
          {tx("Join", "Siediti")}
        </button>
      )}
    </li>
  );
}

export function OpenTablesList({ games, types, busy, onJoin }: {
  games: OpenGame[];
  types: GameType[];
  busy: boolean;
  onJoin: (game: OpenGame) => void;
}) {
  const names = joinNames(games);
  const several = types.length > 1;
  return (
    <ul class="open-tables" aria-label={tx("Open tables", "Tavoli aperti")}>
      {games.map((g) => {
        const type = types.find((t) => t.id === g.game_type);
        return (
          <OpenTableItem
            key={g.id}
            game={g}
            joinName={names[g.id]}
            typeName={several ? (type?.name ?? g.game_type) : undefined}
            titles={Object.fromEntries(fieldsOf(type?.options_schema).map((f) => [f.key, f.title]))}
            busy={busy}
            onJoin={onJoin}
          />
        );
      })}
    </ul>
  );
}

/** Whether a game type has the pace option (live or daily). */
export function hasPace(type: Pick<GameType, "options_schema"> | undefined): boolean {
  return Boolean(type?.options_schema?.properties && "pace" in type.options_schema.properties);
}

/** What "Play now" asks for: a live table unless the player picked daily (a quick match with no
 * pace would seat them at any table, a daily one too); nothing where the type has no pace. */
export function quickMatchBody(type: Pick<GameType, "id" | "options_schema"> | undefined, pace: Pace): QuickMatchRequest {
  return type && hasPace(type) ? { game_type: type.id, options: { pace } } : {};
}

/** The big button: a seat at an open table, or a new one; then the waiting room or the table. */
export function PlayNow({ busy, setBusy }: { busy: boolean; setBusy: (busy: boolean) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [type, setType] = useState<GameType | undefined>(undefined);
  const [pace, setPace] = useState<Pace>("live");
  useEffect(() => {
    gameTypesCached().then((list) => setType(list[0]), () => undefined);
  }, []);
  const play = async () => {
    setBusy(true);
    setError(null);
    try {
      const view = await api.quickMatch(quickMatchBody(type, pace));
      return navigate(`/games/${view.id}`);
    } catch (e) {
      setError(findTableError(e));
    }
    setBusy(false);
  };
  return (
    <div class="play-now">
      {hasPace(type) && (
        <div class="field play-now-pace">
          <label for="play-now-pace">{tx("Pace of the table", "Ritmo del tavolo")}</label>
          <select id="play-now-pace" value={pace} disabled={busy}
            onChange={(e) => setPace((e.currentTarget as HTMLSelectElement).value === "daily" ? "daily" : "live")}>
            <option value="live">{paceChoiceText("live")}</option>
            <option value="daily">{paceChoiceText("daily")}</option>
          </select>
        </div>
      )}
      <button type="button" class="button big play-now-button" disabled={busy} aria-describedby="play-now-help" onClick={() => void play()}>
        {tx("Play now", "Gioca ora")}
      </button>
      <p id="play-now-help" class="field-help">
        {pace === "daily"
          ? tx(
              "Sits you at an open daily table nearest your rating, or opens a new one: everyone moves when they can, within a day.",
              "Ti fa sedere al tavolo giornaliero aperto più vicino al tuo livello Elo, o ne apre uno nuovo: ognuno gioca quando può, entro un giorno.",
            )
          : tx(
              "Sits you at the open table nearest your rating, or opens a new table that anyone can join.",
              "Ti fa sedere al tavolo aperto più vicino al tuo livello Elo, o apre un nuovo tavolo a cui chiunque può unirsi.",
            )}
      </p>
      {error && <Failed error={error} />}
    </div>
  );
}

/** The open tables, live, with a Join button each; ``feed`` replaces the browser's stream in tests. */
export function OpenTables({ busy, setBusy, feed }: {
  busy: boolean;
  setBusy: (busy: boolean) => void;
  feed?: FeedDeps;
}) {
  const { games, error } = useOpenGames(undefined, feed);
  const [types, setTypes] = useState<GameType[]>([]);
  const [joinError, setJoinError] = useState<string | null>(null);
  useEffect(() => {
    gameTypesCached().then(setTypes, () => undefined);
  }, []);
  const join = async (game: OpenGame) => {
    setBusy(true);
    setJoinError(null);
    try {
      const view = await api.joinGame(game.join_code);
      return navigate(`/games/${view.id}`);
    } catch (e) {
      setJoinError(findTableError(e));
    }
    setBusy(false);
  };
  return (
    <div class="open-tables-section">
      <h3 id="open-tables-title">{tx("Open tables", "Tavoli aperti")}</h3>
      <p class="helper">
        {tx(
          "Tables waiting for players, the newest first. The list updates by itself.",
          "Tavoli che aspettano giocatori, dal più recente. L'elenco si aggiorna da solo.",
        )}
      </p>
      {/* Said when the list changes, without moving the focus (the list itself would be read whole). */}
      <p class="visually-hidden" aria-live="polite" data-testid="open-tables-summary">
        {openTablesSummary(games)}
      </p>
      {games === null && !error && <Loading />}
      {error && <Failed what={tx("The open tables cannot be listed right now: ", "I tavoli aperti non si possono elencare ora: ")} error={error} />}
      {games && games.length === 0 && (
        <Empty>
          {tx(
            "No open tables right now — press Play now to open one.",
            "Nessun tavolo aperto in questo momento: premi Gioca ora per aprirne uno.",
          )}
        </Empty>
      )}
      {games && games.length > 0 && <OpenTablesList games={games} types={types} busy={busy} onJoin={(g) => void join(g)} />}
      {joinError && <Failed error={joinError} />}
    </div>
  );
}

/** The Play page's first panel: "Play now" and the open tables. */
export function FindTable({ feed }: { feed?: FeedDeps }) {
  const [busy, setBusy] = useState(false);
  return (
    <section class="panel find-table" aria-labelledby="find-table-title" data-testid="find-table">
      <h2 id="find-table-title">{tx("Play with anyone", "Gioca con chiunque")}</h2>
      <PlayNow busy={busy} setBusy={setBusy} />
      <OpenTables busy={busy} setBusy={setBusy} feed={feed} />
    </section>
  );
}
