// /history: the player's finished matches, newest first, a page at a time ("More"), filtered by
// game type. /history/<id>: one match: the teams, the final score, everyone's Elo change, the
// scoring of every hand, the move log and the deal check.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, gameTypesCached, logUrl, errorText } from "../api";
import { displayName } from "../bots";
import { BotMark } from "../botmarks";
import { eloChange, finalScores, myRow, teamPlayers, unratedKind, winnerOf, type Unrated } from "../history";
import { formatWhen, pointsItalian, tx } from "../i18n";
import type { BotLevel, GameType, MatchItem, MatchPlayer, Team } from "../types";
import { Empty, Failed, Loading } from "../status";
import { EloDelta, GameTypeFilter, TeamBadge } from "../widgets";
import { PlayerLink } from "../playerlink";
import { DealCheck } from "./GameOver";
import { HandSummary } from "./HandEnd";
import { Replay } from "./Replay";
import { AnalysisPanel } from "../analysisview";
import { useAnalysis } from "../useanalysis";

const PAGE = 10;


export function useGameTypes(): GameType[] {
  const [types, setTypes] = useState<GameType[]>([]);
  useEffect(() => {
    gameTypesCached().then(setTypes, () => setTypes([]));
  }, []);
  return types;
}

function typeName(types: GameType[], id: string): string {
  return types.find((t) => t.id === id)?.name ?? id;
}


/** The bot levels of every type, for the names of the bots' levels. */
function levelsOf(types: GameType[], id: string): BotLevel[] {
  return types.find((t) => t.id === id)?.bot_levels ?? [];
}

/** "abandoned": a player whose seat a bot took over and who did not take it back. */
function AbandonedMark() {
  return <span class="abandoned-mark">{tx("abandoned", "ha abbandonato")}</span>;
}

/** "Practice" or "Unrated" by a match that changed no rating. */
export function UnratedBadge({ kind }: { kind: Unrated }) {
  if (!kind) return null;
  return (
    <span class={`badge unrated-badge is-${kind}`} data-testid="unrated-badge">
      {kind === "practice" ? tx("Practice", "Allenamento") : tx("Unrated", "Non valutata")}
    </span>
  );
}

/** Who reads a match list: the viewer (named "you") and whose matches they are (the outcome and
 * the Elo change are theirs: the viewer's own in History, the player's on a player page). */
export interface MatchReader {
  me: Viewer;
  whose?: Viewer;
}

/** A member by name and, when known, public player id. */
export interface Viewer {
  name: string;
  player?: string | null;
}

function isViewer(player: MatchPlayer, me: Viewer): boolean {
  if (player.bot) return false;
  return me.player && player.player ? player.player === me.player : player.name === me.name;
}

function PlayerName({ player, me, levels }: { player: MatchPlayer; me: Viewer; levels: BotLevel[] }) {
  const you = isViewer(player, me);
  return (
    <span class="match-player-name">
      {you ? (
        <span class="name-text">{tx("you", "tu")}</span>
      ) : (
        <PlayerLink who={player} class="name-text">{displayName(player, levels)}</PlayerLink>
      )}
      {player.bot && <> <BotMark level={player.bot} levels={levels} /></>}
      {player.abandoned && <> <AbandonedMark /></>}
    </span>
  );
}

function Names({ players, me, levels }: { players: MatchPlayer[]; me: Viewer; levels: BotLevel[] }) {
  return (
    <>
      {players.map((p, i) => (
        <span key={p.seat}>
          {i > 0 && " · "}
          <PlayerName player={p} me={me} levels={levels} />
        </span>
      ))}
    </>
  );
}

/** An Elo change, or a dash for a bot and for a match that changed no rating. */
function EloCell({ change }: { change: number | null }) {
  if (change !== null) return <EloDelta delta={change} />;
  return (
    <span class="elo-none">
      <span aria-hidden="true">—</span>
      <span class="visually-hidden">{tx("no change", "nessuna variazione")}</span>
    </span>
  );
}

/**
 * A finished match in a list: the outcome, the score (the reader's team first), the Elo change,
 * the teams with every person's name a link to their page. With ``href`` the head links to the
 * match's page, and the whole card with it (the names stay links of their own).
 */
export function MatchRow({ match, reader, types, href }: { match: MatchItem; reader: MatchReader; types: GameType[]; href?: string }) {
  const whose = reader.whose ?? reader.me;
  const mine = myRow(match, whose.name, whose.player);
  const scores = finalScores(match);
  const winner = winnerOf(match);
  const outcome = mine ? (mine.won ? tx("Won", "Vinta") : tx("Lost", "Persa")) : "";
  const change = mine ? eloChange(match, mine) : null;
  const levels = levelsOf(types, match.game_type);
  const head = (
    <>
      <span class={`match-outcome${mine?.won ? " won" : " lost"}`}>{outcome}</span>
      <span class="match-score" title={reader.whose
        ? tx(`${whose.name}'s team's points first`, `Prima i punti della squadra di ${whose.name}`)
        : tx("Your team's points first", "Prima i punti della tua squadra")}>
        {mine?.team === "B" ? `${scores.B}–${scores.A}` : `${scores.A}–${scores.B}`}
      </span>
      <UnratedBadge kind={unratedKind(match)} />
      {mine?.abandoned && <AbandonedMark />}
      {change !== null && (
        <span class="match-elo">
          Elo <EloDelta delta={change} />
        </span>
      )}
      <span class="game-item-when">{formatWhen(match.finished_at)}</span>
    </>
  );
  return (
    <li class={`match-item${mine?.won ? " is-won" : " is-lost"}${href ? " has-link" : ""}`} data-testid="match-item">
      {href ? <a href={href} class="match-item-head match-item-link">{head}</a> : <span class="match-item-head">{head}</span>}
      <span class="match-item-teams">
        {(["A", "B"] as const).map((team) => (
          <span key={team} class={`chip team-${team}${winner === team ? " is-winner" : ""}`}>
            {tx("Team", "Squadra")} {team}: <Names players={teamPlayers(match, team)} me={reader.me} levels={levels} />
          </span>
        ))}
        {types.length > 1 && <span class="game-item-type">{typeName(types, match.game_type)}</span>}
      </span>
    </li>
  );
}

export function HistoryScreen({ me }: { me: Viewer }) {
  const types = useGameTypes();
  const [gameType, setGameType] = useState("");
  const [items, setItems] = useState<MatchItem[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Only the newest request may fill the list: a page of the filter left behind is dropped.
  const latest = useRef(0);
  const load = async (from: string | null, type: string, before: MatchItem[]) => {
    const request = ++latest.current;
    setBusy(true);
    setError(null);
    try {
      const page = await api.matches({ limit: PAGE, cursor: from, gameType: type || null });
      if (request !== latest.current) return;
      setItems([...before, ...page.items]);
      setCursor(page.next_cursor);
    } catch (e) {
      if (request !== latest.current) return;
      setError(errorText(e));
      if (!before.length) setItems(null);
    }
    setBusy(false);
  };
  useEffect(() => {
    setItems(null);
    void load(null, gameType, []);
  }, [gameType]);

  return (
    <section class="panel history" data-testid="screen-history" aria-labelledby="history-title">
      <h1 id="history-title">{tx("Your matches", "Le tue partite giocate")}</h1>
      <p class="helper">
        {tx(
          "Every match you finished, the newest first. Open one for the scoring of each hand, everyone's Elo change and the deal check.",
          "Tutte le partite che hai finito, dalla più recente. Aprine una per il punteggio di ogni mano, la variazione Elo di ciascuno e la verifica delle carte distribuite.",
        )}
      </p>
      {types.length > 0 && (
        <GameTypeFilter id="history-type" types={types} value={gameType} onChange={setGameType}
          allLabel={tx("All game types", "Tutti i tipi di gioco")} />
      )}
      {items === null && !error && <Loading />}
      {items && items.length === 0 && (
        <Empty>
          {tx("No finished matches yet. ", "Ancora nessuna partita finita. ")}
          <a href="/">{tx("Start a game", "Inizia una partita")}</a>
        </Empty>
      )}
      {items && items.length > 0 && (
        <ul class="game-list match-list" aria-label={tx("Finished matches", "Partite finite")}>
          {items.map((m) => (
            <MatchRow key={m.id} match={m} reader={{ me }} types={types} href={`/history/${m.id}`} />
          ))}
        </ul>
      )}
      {error && <Failed what={tx("Your matches cannot be listed right now: ", "Le tue partite non si possono elencare ora: ")} error={error} />}
      {(cursor || error) && (
        <p>
          <button
            type="button"
            class="button secondary"
            disabled={busy}
            onClick={() => void load(cursor, gameType, items ?? [])}
          >
            {busy ? tx("Loading…", "Caricamento…") : error ? tx("Try again", "Riprova") : tx("More", "Altre")}
          </button>
        </p>
      )}
    </section>
  );
}

/** The match with this id: the history has no single-match read, so its pages are walked. */
async function findMatch(id: string): Promise<MatchItem | null> {
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const found = await api.matches({ limit: 100, cursor });
    const match = found.items.find((m) => m.id === id);
    if (match) return match;
    if (!found.next_cursor) return null;
    cursor = found.next_cursor;
  }
  return null;
}

function winnerFirst(scores: Record<Team, number>, winner: Team): string {
  const other: Team = winner === "A" ? "B" : "A";
  return `${scores[winner]}–${scores[other]}`;
}

function TeamTable({ match, me, levels }: { match: MatchItem; me: string; levels: BotLevel[] }) {
  const winner = winnerOf(match);
  const scores = finalScores(match);
  return (
    <table class="summary players-table">
      <caption>{tx("Players and Elo", "Giocatori ed Elo")}</caption>
      <thead>
        <tr>
          <th scope="col">{tx("Team", "Squadra")}</th>
          <th scope="col">{tx("Player", "Giocatore")}</th>
          <th scope="col">{tx("Points", "Punti")}</th>
          <th scope="col">{tx("Elo change", "Variazione Elo")}</th>
        </tr>
      </thead>
      <tbody>
        {(["A", "B"] as Team[]).flatMap((team) =>
          teamPlayers(match, team).map((p) => (
            <tr key={p.seat} class={p.name === me && !p.bot ? "is-me" : ""} data-testid="match-player">
              <td>
                <TeamBadge team={team} />
                {winner === team && <span class="win-mark"> {tx("won", "vince")}</span>}
              </td>
              <th scope="row" class="player-name">
                <PlayerLink who={p} class="name-text" title={displayName(p, levels)}>{displayName(p, levels)}</PlayerLink>
                {p.name === me && !p.bot && <span class="you-tag"> ({tx("you", "tu")})</span>}
                {p.bot && <> <BotMark level={p.bot} levels={levels} /></>}
                {p.abandoned && <> <AbandonedMark /></>}
              </th>
              <td>{scores[team]}</td>
              <td>
                <EloCell change={eloChange(match, p)} />
              </td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** "Analyse my play" above the replay, which marks each of the member's plays once it is done. */
function AnalysedReplay({ match, me, levels }: { match: MatchItem; me: string; levels: BotLevel[] }) {
  const { state, ask, retry } = useAnalysis(match.id);
  return (
    <>
      <AnalysisPanel state={state} ask={ask} retry={retry} />
      <Replay match={match} me={me} levels={levels} analysis={state.kind === "done" ? state.analysis : null} />
    </>
  );
}

export function MatchScreen({ id, me }: { id: string; me: string }) {
  const types = useGameTypes();
  const [match, setMatch] = useState<MatchItem | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  useEffect(() => {
    setMatch(undefined);
    findMatch(id).then(setMatch, (e) => setError(errorText(e)));
  }, [id]);

  if (error) {
    return (
      <section class="panel" data-testid="screen-match">
        <h1>{tx("This match cannot be shown", "Questa partita non si può mostrare")}</h1>
        <Failed error={error} />
        <p>
          <a href="/history" class="button secondary">{tx("Back to your matches", "Torna alle tue partite")}</a>
        </p>
      </section>
    );
  }
  if (match === undefined) return <Loading />;
  if (match === null) {
    return (
      <section class="panel" data-testid="screen-match">
        <h1>{tx("Match not found", "Partita non trovata")}</h1>
        <p class="helper">
          {tx("None of your finished matches has this id.", "Nessuna delle tue partite finite ha questo id.")}
        </p>
        <p>
          <a href="/history" class="button secondary">{tx("Back to your matches", "Torna alle tue partite")}</a>
        </p>
      </section>
    );
  }
  const mine = myRow(match, me);
  const scores = finalScores(match);
  const winner = winnerOf(match);
  const audit = match.result?.audit ?? [];
  const unrated = unratedKind(match);
  const change = mine ? eloChange(match, mine) : null;
  return (
    <section class="panel match-detail" data-testid="screen-match">
      <p class="crumbs">
        <a href="/history">← {tx("Your matches", "Le tue partite giocate")}</a>
      </p>
      <h1>
        {winner
          ? tx(`Team ${winner} won ${winnerFirst(scores, winner)}`, `Ha vinto la squadra ${winner}, ${winnerFirst(scores, winner)}`)
          : tx("Match", "Partita")}
      </h1>
      <p class="helper">
        {typeName(types, match.game_type)} · {formatWhen(match.finished_at)}
        {match.result?.target_score !== undefined && <> · {tx(`playing to ${match.result.target_score}`, `si gioca ${pointsItalian(match.result.target_score)}`)}</>}
        {mine && (
          <>
            {" · "}
            {mine.won ? tx("you won", "hai vinto") : tx("you lost", "hai perso")}
            {change !== null && <>, Elo <EloDelta delta={change} /></>}
          </>
        )}
      </p>
      {unrated && (
        <p class="unrated-note">
          <UnratedBadge kind={unrated} />{" "}
          {unrated === "practice"
            ? tx("A bot played from the start: a practice match changes no rating.", "Un bot ha giocato dall'inizio: una partita di allenamento non cambia il punteggio Elo.")
            : tx(
                "Not every player who started this match finished it, so it changed no rating; a player who abandoned it lost what a lost match costs.",
                "Non tutti i giocatori che l'hanno iniziata l'hanno finita, quindi non ha cambiato il punteggio Elo; chi l'ha abbandonata ha perso quanto costa una sconfitta.",
              )}
        </p>
      )}
      <TeamTable match={match} me={me} levels={levelsOf(types, match.game_type)} />
      <AnalysedReplay match={match} me={me} levels={levelsOf(types, match.game_type)} />
      <h2>{tx("Hand by hand", "Mano per mano")}</h2>
      {audit.length === 0 && <Empty>{tx("This match has no hand record.", "Questa partita non ha il dettaglio delle mani.")}</Empty>}
      <div class="audit" data-testid="hand-audit">
        {audit.map((hand) => (
          <HandSummary key={hand.hand} hand={hand} mine={mine?.team} napola={true} />
        ))}
      </div>
      <h2>{tx("The move log", "Il registro delle mosse")}</h2>
      <p class="helper">
        {tx(
          "Every card played, in order, with the revealed seed: anyone can replay the match from it.",
          "Ogni carta giocata, in ordine, con il seed rivelato: chiunque può rigiocare la partita da lì.",
        )}{" "}
        <a href={logUrl(match.id)} target="_blank" rel="noopener">
          {tx("Open the move log (JSON)", "Apri il registro delle mosse (JSON)")}
        </a>
      </p>
      {checking ? (
        <DealCheck id={match.id} commitment={null} names={seatNamesOf(match)} />
      ) : (
        <p>
          <button type="button" class="button secondary" onClick={() => setChecking(true)}>
            {tx("Check this deal", "Verifica le smazzate")}
          </button>
        </p>
      )}
    </section>
  );
}

function seatNamesOf(match: MatchItem): (string | undefined)[] {
  const names: (string | undefined)[] = [];
  for (const p of match.players) names[p.seat] = displayName(p);
  return names;
}
