// "Analyse my play" on the screen: the panel of the game over and of a match in History (the
// button, the calm progress line while the analysis waits or runs, the accuracy and the counts
// once done, the server's refusal in its words), a verdict's mark, and the box the replay shows
// under one of your plays: its verdict and, beside it, the better play in cards.

import { ShownCard } from "./cards";
import { cardList } from "./deck";
import { tx } from "./i18n";
import { countsText, countWord, lossText, markOf, samePlay, verdictMark, waitingText, type AnalysisState, type VerdictMark } from "./analysis";
import type { AnalysedMove, AnalysedPlay, AnalysisSummary } from "./types";
import { Failed, Loading } from "./status";

/** A verdict's symbol in its colour; screen readers hear its word instead. With ``withWord`` the
 * word is shown too (an auto-play's alone: its symbol is a word already). */
export function VerdictBadge({ mark, withWord = false }: { mark: VerdictMark; withWord?: boolean }) {
  const symbol = !(withWord && mark.className === "verdict-auto");
  return (
    <span class={`verdict-badge ${mark.className}`} data-testid="verdict-badge">
      {symbol && <span class="verdict-symbol" aria-hidden="true">{mark.symbol}</span>}
      {withWord ? <span class="verdict-word">{mark.word}</span> : <span class="visually-hidden">{mark.word}</span>}
    </span>
  );
}

/** A card and what it took, in cards: "7 of denari → 3 of spade, 4 of bastoni". */
function MoveCards({ move, label }: { move: AnalysedMove; label: string }) {
  const words = move.capture.length > 0
    ? tx(`${label}: ${cardList([move.card])} taking ${cardList(move.capture)}`, `${label}: ${cardList([move.card])} prendendo ${cardList(move.capture)}`)
    : tx(`${label}: ${cardList([move.card])} on the table`, `${label}: ${cardList([move.card])} sul tavolo`);
  return (
    <div class="analysis-move" role="group" aria-label={words}>
      <span class="analysis-move-label" aria-hidden="true">{label}</span>
      <span class="analysis-move-cards" aria-hidden="true">
        <ShownCard code={move.card} mark="played" />
        {move.capture.length > 0 && <span class="replay-arrow">→</span>}
        {move.capture.map((c) => <ShownCard key={c} code={c} mark="taken" />)}
      </span>
    </div>
  );
}

/** Under one of your plays in the replay: its verdict, the points it lost and the better play. */
export function PlayVerdict({ play }: { play: AnalysedPlay }) {
  const mark = markOf(play);
  if (!mark) return null;
  const better = play.best && !play.auto && !samePlay(play.best, play.played) ? play.best : null;
  return (
    <div class={`analysis-verdict ${mark.className}`} data-testid="play-verdict" data-verdict={play.auto ? "auto" : play.verdict}>
      <p class="analysis-verdict-head">
        <VerdictBadge mark={mark} withWord />
        {!play.auto && play.loss !== undefined && play.loss > 0 && (
          <span class="analysis-loss">
            {tx(`expected loss ${lossText(play.loss)}`, `perdita attesa ${lossText(play.loss)}`)}
          </span>
        )}
      </p>
      {play.auto ? (
        <p class="analysis-note">
          {tx("The time ran out and the server played this card: it is not judged.", "Il tempo è scaduto e il server ha giocato questa carta: non viene valutata.")}
        </p>
      ) : (
        <div class="analysis-moves">
          <MoveCards move={play.played} label={tx("You played", "Hai giocato")} />
          {better && <MoveCards move={better} label={tx("Better", "Meglio")} />}
        </div>
      )}
    </div>
  );
}

/** The accuracy and the counts of a done analysis. */
export function AnalysisFigures({ summary }: { summary: AnalysisSummary }) {
  const counts = ([["inaccuracy", summary.inaccuracies], ["mistake", summary.mistakes], ["blunder", summary.blunders]] as const)
    .map(([verdict, n]) => ({ mark: verdictMark(verdict), n, word: countWord(verdict, n) }));
  return (
    <div class="analysis-figures" data-testid="analysis-figures">
      <p class="analysis-accuracy">
        <span class="analysis-accuracy-value" data-testid="analysis-accuracy">{summary.accuracy}%</span>{" "}
        <span class="analysis-accuracy-label">{tx("accuracy", "precisione")}</span>
      </p>
      <ul class="analysis-counts" aria-label={countsText(summary)}>
        {counts.map(({ mark, n, word }) => (
          <li key={mark.className} class={`analysis-count ${mark.className}`} aria-hidden="true">
            <span class="verdict-symbol">{mark.symbol}</span> {n} <span class="analysis-count-word">{word}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The analysis of a finished match for its player: on the game over (``replayHref`` links to the
 * replay that marks the plays) or above the replay in History.
 */
export function AnalysisPanel({ state, ask, retry, replayHref }: {
  state: AnalysisState;
  ask: () => void;
  retry: () => void;
  /** Where the marked plays are shown: a link on the game over; absent in History (the replay is below). */
  replayHref?: string;
}) {
  const button = (busy: boolean) => (
    <p>
      <button type="button" class="button" onClick={ask} disabled={busy}>
        {tx("Analyse my play", "Analizza il mio gioco")}
      </button>
    </p>
  );
  let body;
  switch (state.kind) {
    case "loading":
      body = <Loading>{tx("Looking for your analysis…", "Ricerca della tua analisi…")}</Loading>;
      break;
    case "none":
      body = button(false);
      break;
    case "refused":
      body = (
        <>
          <Failed what={tx("The analysis was not started: ", "L'analisi non è partita: ")} error={state.error} />
          {button(false)}
        </>
      );
      break;
    case "failed":
      body = <Failed what={tx("The analysis cannot be read: ", "L'analisi non si può leggere: ")} error={state.error} onRetry={retry} />;
      break;
    case "asking":
    case "waiting":
      body = (
        <div class="analysis-waiting" role="status" data-testid="analysis-waiting">
          <span class="analysis-dots" aria-hidden="true" />
          {waitingText(state.kind === "asking" ? "asking" : state.status)}
        </div>
      );
      break;
    case "done":
      body = (
        <>
          {state.analysis.summary && <AnalysisFigures summary={state.analysis.summary} />}
          {replayHref ? (
            <p>
              <a class="button secondary" href={replayHref}>{tx("Step through your plays", "Rivedi le tue giocate")}</a>
            </p>
          ) : (
            <p class="helper">
              {tx(
                "The replay below marks each of your plays; “Next mistake” jumps to the next one to learn from.",
                "La partita qui sotto segna ognuna delle tue giocate; “Errore successivo” salta al prossimo da cui imparare.",
              )}
            </p>
          )}
        </>
      );
      break;
  }
  return (
    <section class="analysis-panel" aria-labelledby="analysis-title" data-testid="analysis-panel" data-state={state.kind}>
      <h2 id="analysis-title">{tx("Learn from your plays", "Impara dalle tue giocate")}</h2>
      {state.kind !== "done" && (
        <p class="helper">
          {tx(
            "Each of your plays judged from what you knew then (your hand and the table, never the others' cards), with the better play beside it.",
            "Ognuna delle tue giocate valutata con ciò che sapevi allora (la tua mano e il tavolo, mai le carte degli altri), con accanto la giocata migliore.",
          )}
        </p>
      )}
      {body}
    </section>
  );
}
