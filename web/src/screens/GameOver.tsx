// The end of the match: who won, the final score, the deal check, and playing again. The
// revealed seed must hash to the commitment shown during play, and re-deal every hand to the
// cards actually played. "Play again" creates the rematch (or joins it, when another player
// was first: their invitation arrives on the socket).

import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError, logUrl, errorText } from "../api";
import { PlayerLink } from "../playerlink";
import { displayName, isPracticeView, playAgainWithBots } from "../bots";
import { playerName } from "../describe";
import { shortHex } from "../entropy";
import { verifyLog, type Contribution, type FirstDealer, type Verification } from "../fairness";
import { aItalian, tx } from "../i18n";
import { andList } from "../deck";
import { LastHandTally } from "../tally";
import { eloChange } from "../history";
import type { MatchItem } from "../types";
import { navigate } from "../router";
import type { ConnectionStatus } from "../socket";
import type { GameView, RematchNotice } from "../types";
import { rememberedCommitment } from "../usegame";
import { Failed } from "../status";
import { EloDelta } from "../widgets";
import { HandSummary } from "./HandEnd";
import { AnalysisPanel } from "../analysisview";
import { useAnalysis } from "../useanalysis";
import { ScoreBoard } from "./Table";

function seatNames(view: GameView): (string | undefined)[] {
  const names: (string | undefined)[] = [];
  for (const p of view.players) names[p.seat] = displayName(p);
  return names;
}

type Check = { state: "running" } | { state: "done"; result: Verification } | { state: "error"; message: string };

/** Each seat's part of the deal key: its value, shortened, or "withheld". */
export function Contributions({ contributions, names }: { contributions: Contribution[]; names?: (string | undefined)[] }) {
  const withheld = contributions.filter((c) => c.value === null);
  return (
    <div class="contributions" data-testid="contributions">
      <h3>{tx("The players' values", "I valori dei giocatori")}</h3>
      <ul class="contribution-list">
        {contributions.map((c) => {
          const who = names?.[c.seat];
          return (
            <li key={c.seat} data-testid={`contribution-${c.seat}`}>
              <span class="contribution-seat">
                {tx(`Seat ${c.seat + 1}`, `Posto ${c.seat + 1}`)}
                {who ? ` (${who})` : ""}
              </span>{" "}
              {c.value ? (
                <code class="contribution-value" title={c.value}>{shortHex(c.value)}</code>
              ) : (
                <span class="contribution-withheld">{tx("withheld", "non fornito")}</span>
              )}
            </li>
          );
        })}
      </ul>
      <p class="helper">
        {withheld.length === 0
          ? tx("Every seat added its value.", "Ogni posto ha aggiunto il suo valore.")
          : tx(
              `Withheld (counted as zeros): ${withheld.map((c) => `seat ${c.seat + 1}${names?.[c.seat] ? ` (${names[c.seat]})` : ""}`).join(", ")}.`,
              `Non forniti (contano come zeri): ${withheld.map((c) => `posto ${c.seat + 1}${names?.[c.seat] ? ` (${names[c.seat]})` : ""}`).join(", ")}.`,
            )}
      </p>
    </div>
  );
}

/** Who dealt the first hand and who led it, seats counted from 1 as on every screen. */
export function FirstDeal({ first, names }: { first: FirstDealer; names?: (string | undefined)[] }) {
  const seat = (s: number) => `${s + 1}${names?.[s] ? ` (${names[s]})` : ""}`;
  const leader = (first.seat + 1) % 4;
  return (
    <p class="helper" data-testid="first-dealer">
      {first.drawn
        ? tx(
            `Seat ${seat(first.seat)} dealt the first hand, drawn by lot from the seed, and seat ${seat(leader)} led it; the deal then passed to the next seat each hand.`,
            `Il posto ${seat(first.seat)} ha dato le carte nella prima mano, estratto a sorte dal seed, e il posto ${seat(leader)} era di mano; poi a ogni mano le ha date il posto seguente.`,
          )
        : tx(
            `Seat ${seat(leader)} led the first hand: this game is older than the draw of the first dealer.`,
            `Il posto ${seat(leader)} era di mano nella prima mano: questa partita è precedente all'estrazione del primo mazziere.`,
          )}
    </p>
  );
}

export function DealCheck({ id, commitment, names }: { id: string; commitment: string | null; names?: (string | undefined)[] }) {
  const [check, setCheck] = useState<Check>({ state: "running" });
  const run = useCallback(async () => {
    setCheck({ state: "running" });
    try {
      const log = await api.log(id);
      setCheck({ state: "done", result: await verifyLog(log, commitment) });
    } catch (e) {
      setCheck({ state: "error", message: e instanceof ApiError ? e.detail : String(e instanceof Error ? e.message : e) });
    }
  }, [id, commitment]);
  useEffect(() => {
    void run();
  }, [run]);

  let result;
  if (check.state === "running")
    result = (
      <p data-testid="verify-result" class="verify running">
        {tx("Checking the deals…", "Verifica delle smazzate in corso…")}
      </p>
    );
  else if (check.state === "error")
    result = (
      <p data-testid="verify-result" class="verify bad" role="alert">
        {tx("The check could not run: ", "La verifica non è riuscita: ")}
        {check.message}
      </p>
    );
  else if (check.result.ok)
    result = (
      <>
        <p data-testid="verify-result" class="verify good">
          <strong>{tx("The deals match", "Le smazzate corrispondono")}</strong>: {check.result.message}.
        </p>
        <FirstDeal first={check.result.firstDealer} names={names} />
      </>
    );
  else
    result = (
      <p data-testid="verify-result" class="verify bad" role="alert">
        <strong>{tx("The deals do not match.", "Le smazzate non corrispondono.")}</strong> {check.result.message}
      </p>
    );

  return (
    <section class="deal-check" aria-labelledby="check-title">
      <h2 id="check-title">{tx("Check this deal", "Verifica le smazzate")}</h2>
      <p class="helper">
        {tx(
          "Before the first card, the server fixed a secret seed and showed its SHA-256 fingerprint (the commitment). Now the seed is revealed: your browser checks that it matches the fingerprint, re-shuffles every hand from it and checks each card played against the cards dealt to that seat. Nobody could have changed the deals during the game.",
          "Prima della prima carta il server ha fissato un seed segreto e ne ha mostrato l'impronta SHA-256. Ora il seed è rivelato: il tuo browser controlla che corrisponda all'impronta, rimescola ogni mano a partire da esso e confronta ogni carta giocata con le carte distribuite a quel posto. Nessuno ha potuto cambiare le carte durante la partita.",
        )}
      </p>
      {result}
      {check.state === "done" && check.result.contributions && (
        <>
          <p class="helper">
            {tx(
              "This game used the players' entropy: every seat added a secret random value, committed to before anyone revealed. The deals come from SHA-256 of the seed and the four values, so nobody, not even the server, chose them.",
              "Questa partita ha usato l'entropia dei giocatori: ogni posto ha aggiunto un valore casuale segreto, di cui ha mostrato l'impronta prima che qualcuno lo rivelasse. Le smazzate vengono dallo SHA-256 del seed e dei quattro valori, quindi nessuno, nemmeno il server, le ha scelte.",
            )}
          </p>
          <Contributions contributions={check.result.contributions} names={names} />
        </>
      )}
      <p class="check-actions">
        <button type="button" class="button secondary" onClick={() => void run()} disabled={check.state === "running"}>
          {tx("Check again", "Verifica di nuovo")}
        </button>
        <a href={logUrl(id)} target="_blank" rel="noopener">
          {tx("Raw move log (JSON)", "Registro delle mosse (JSON)")}
        </a>
      </p>
    </section>
  );
}

/** "Analyse my play": asked here, read in History's replay of the match. */
function GameOverAnalysis({ id }: { id: string }) {
  const { state, ask, retry } = useAnalysis(id);
  return <AnalysisPanel state={state} ask={ask} retry={retry} replayHref={`/history/${id}`} />;
}

function PlayAgain({ view, invitation }: { view: GameView; invitation: RematchNotice | null }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A practice match comes back with the same bots in their seats.
  const practice = isPracticeView(view);
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      const game = practice ? await playAgainWithBots(view) : await api.rematch(view.id);
      navigate(`/games/${game.id}`);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <section class={`play-again${invitation ? " is-invited" : ""}`} aria-labelledby="again-title" data-testid="play-again">
      <h2 id="again-title">{tx("Play again", "Gioca ancora")}</h2>
      {invitation ? (
        <p class="rematch-invite" role="status" data-testid="rematch-invite">
          {tx(
            `${invitation.by} started a rematch with the same rules (code ${invitation.join_code}). Join to sit at the table again.`,
            `${invitation.by} ha proposto la rivincita con le stesse regole (codice ${invitation.join_code}). Unisciti per tornare al tavolo.`,
          )}
        </p>
      ) : (
        <p class="helper">
          {practice
            ? tx(
                "A new practice game with the same rules and the same bots in their seats; anyone else who played is invited at once.",
                "Una nuova partita di allenamento con le stesse regole e gli stessi bot ai loro posti; chi altro ha giocato riceve subito l'invito.",
              )
            : tx(
                "A new game with the same rules and the same four players, each in the same seat (partners stay partners): the others are invited at once and join with one click.",
                "Una nuova partita con le stesse regole e gli stessi quattro giocatori, ognuno al suo posto (i compagni restano compagni): gli altri ricevono subito l'invito e si uniscono con un clic.",
              )}
        </p>
      )}
      <button type="button" class="button big" onClick={() => void go()} disabled={busy}>
        {invitation ? tx("Join the rematch", "Unisciti alla rivincita") : tx("Play again", "Gioca ancora")}
      </button>
      {error && <Failed error={error} />}
    </section>
  );
}

/** How often, and how many times, the game over asks the history for the finished match: the
 * stats service records it a moment after the end. */
const ELO_POLL_MS = 1500;
const ELO_TRIES = 12;

/** The match as the history recorded it, once it is there (null while waiting or if it never
 * comes). */
function useRecordedMatch(id: string): MatchItem | null | "gone" {
  const [match, setMatch] = useState<MatchItem | null | "gone">(null);
  useEffect(() => {
    let live = true;
    let tries = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = async () => {
      tries++;
      try {
        const page = await api.matches({ limit: 10 });
        const found = page.items.find((m) => m.id === id);
        if (!live) return;
        if (found) return setMatch(found);
      } catch {
        /* the history is not reachable now: try again */
      }
      if (!live) return;
      if (tries >= ELO_TRIES) return setMatch("gone");
      timer = setTimeout(() => void look(), ELO_POLL_MS);
    };
    void look();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);
  return match;
}

/** Everyone's Elo change, as soon as the history has recorded the match. */
function EloOutcome({ view }: { view: GameView }) {
  const match = useRecordedMatch(view.id);
  if (match === "gone") return null;
  if (match === null) {
    return (
      <p class="elo-outcome is-waiting" data-testid="game-elo">
        {tx("Elo: counting the ratings…", "Elo: calcolo dei punteggi…")}
      </p>
    );
  }
  const rows = [...match.players].sort((a, b) => a.seat - b.seat);
  const anyChange = rows.some((p) => eloChange(match, p) !== null);
  return (
    <section class="elo-outcome" data-testid="game-elo" aria-labelledby="elo-title">
      <h2 id="elo-title">{tx("Elo change", "Variazione Elo")}</h2>
      {!anyChange ? (
        <p class="helper">
          {match.rated === false
            ? tx("A practice match: no rating changes.", "Una partita di allenamento: nessun punteggio Elo cambia.")
            : tx("No rating changed.", "Nessun punteggio Elo è cambiato.")}
        </p>
      ) : (
        <ul class="elo-list">
          {rows.map((p) => {
            const change = eloChange(match, p);
            const you = p.seat === view.you;
            return (
              <li key={p.seat} class={you ? "is-you" : ""}>
                {you ? (
                  <span class="name-text">{tx("You", "Tu")}</span>
                ) : (
                  <PlayerLink who={p} class="name-text">{playerName(view, p.seat)}</PlayerLink>
                )}{" "}
                {change === null ? <span class="elo-none">—</span> : <EloDelta delta={change} />}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

export function GameOverScreen({
  view,
  commitment,
  rematch,
  connection,
}: {
  view: GameView;
  commitment: string | null;
  rematch: RematchNotice | null;
  /** The socket's state: an invitation can only arrive while it is open. */
  connection: ConnectionStatus;
}) {
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const winner = view.winner;
  const won = winner !== undefined && winner === mine;
  const seen = rememberedCommitment(view.id) ?? commitment ?? view.seed_commitment;
  const partnerSeat = view.players.find((p) => p.team === mine && p.seat !== view.you)?.seat;
  const partner = partnerSeat === undefined ? tx("your partner", "il tuo compagno") : playerName(view, partnerSeat);
  const winners = andList(view.players.filter((p) => p.team === winner).map((p) => playerName(view, p.seat)));
  return (
    <section class="panel game-over" data-testid="screen-game-over" data-connection={connection}>
      <h1>{winner ? tx(`Team ${winner} wins`, `Vince la squadra ${winner}`) : tx("The game is over", "La partita è finita")}</h1>
      {winner && (
        <p class={`outcome ${won ? "won" : "lost"}`}>
          {won
            ? tx(`Your team won: well played, you and ${partner}!`, `La tua squadra ha vinto: ben giocato, tu e ${partner}!`)
            : tx(`Your team lost this one. Congratulations to ${winners}.`, `Questa volta la tua squadra ha perso. Complimenti ${aItalian(winners)}.`)}
        </p>
      )}
      <ScoreBoard view={view} />
      <p class="final-score">
        {tx(
          `Final score: Team A ${view.scores.A}, Team B ${view.scores.B} (target ${String(view.options?.target_score ?? "")}).`,
          `Punteggio finale: squadra A ${view.scores.A}, squadra B ${view.scores.B} (obiettivo ${String(view.options?.target_score ?? "")}).`,
        )}
      </p>
      <PlayAgain view={view} invitation={rematch} />
      <EloOutcome view={view} />
      <GameOverAnalysis id={view.id} />
      {view.last_hand && <HandSummary hand={view.last_hand} mine={mine} napola={view.options?.napola !== false} />}
      {view.last_hand && <LastHandTally id={view.id} hand={view.last_hand} mine={mine} />}
      <dl class="seed">
        <div>
          <dt>{tx("Seed commitment (shown during the game)", "Impronta del seed (mostrata durante la partita)")}</dt>
          <dd>
            <code>{seen}</code>
          </dd>
        </div>
        <div>
          <dt>{tx("Seed (revealed now)", "Seed (rivelato ora)")}</dt>
          <dd>
            <code>{view.seed ?? tx("not revealed", "non rivelato")}</code>
          </dd>
        </div>
      </dl>
      <DealCheck id={view.id} commitment={seen} names={seatNames(view)} />
      <p class="game-over-links">
        <a href={`/history/${view.id}`}>{tx("See this match in your history", "Vedi questa partita nello storico")}</a>
        {" · "}
        <a href="/">{tx("Back to the start page", "Torna alla pagina iniziale")}</a>
      </p>
    </section>
  );
}
