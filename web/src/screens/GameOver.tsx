// The end of the match: who won, the final score, and the deal check. The revealed seed must
// hash to the commitment shown during play, and re-deal every hand to the cards actually played.

import { useCallback, useEffect, useState } from "preact/hooks";
import { api, ApiError, logUrl } from "../api";
import { verifyLog, type Verification } from "../fairness";
import type { GameView } from "../types";
import { rememberedCommitment } from "../usegame";
import { HandSummary } from "./HandEnd";
import { ScoreBoard } from "./Table";

type Check = { state: "running" } | { state: "done"; result: Verification } | { state: "error"; message: string };

function DealCheck({ id, commitment }: { id: string; commitment: string | null }) {
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
  if (check.state === "running") result = <p data-testid="verify-result" class="verify running">Checking the deals…</p>;
  else if (check.state === "error")
    result = (
      <p data-testid="verify-result" class="verify bad" role="alert">
        The check could not run: {check.message}
      </p>
    );
  else if (check.result.ok)
    result = (
      <p data-testid="verify-result" class="verify good">
        <strong>The deals match</strong>: {check.result.message}.
      </p>
    );
  else
    result = (
      <p data-testid="verify-result" class="verify bad" role="alert">
        <strong>The deals do not match.</strong> {check.result.message}
      </p>
    );

  return (
    <section class="deal-check" aria-labelledby="check-title">
      <h2 id="check-title">Check this deal</h2>
      <p class="helper">
        Before the first card, the server fixed a secret seed and showed its SHA-256 fingerprint
        (the commitment). Now the seed is revealed: your browser checks that it matches the
        fingerprint, re-shuffles every hand from it and checks each card played against the cards
        dealt to that seat. Nobody could have changed the deals during the game.
      </p>
      {result}
      <p class="check-actions">
        <button type="button" class="button secondary" onClick={() => void run()} disabled={check.state === "running"}>
          Check again
        </button>
        <a href={logUrl(id)} target="_blank" rel="noopener">
          Raw move log (JSON)
        </a>
      </p>
    </section>
  );
}

export function GameOverScreen({ view, commitment }: { view: GameView; commitment: string | null }) {
  const mine = view.players.find((p) => p.seat === view.you)?.team;
  const winner = view.winner;
  const won = winner !== undefined && winner === mine;
  const seen = rememberedCommitment(view.id) ?? commitment ?? view.seed_commitment;
  const partner = view.players.find((p) => p.team === mine && p.seat !== view.you)?.name ?? "your partner";
  const winners = view.players.filter((p) => p.team === winner).map((p) => p.name).join(" and ");
  return (
    <section class="panel game-over" data-testid="screen-game-over">
      <h1>{winner ? `Team ${winner} wins` : "The game is over"}</h1>
      {winner && (
        <p class={`outcome ${won ? "won" : "lost"}`}>
          {won ? `Your team won: well played, you and ${partner}!` : `Your team lost this one. Congratulations to ${winners}.`}
        </p>
      )}
      <ScoreBoard view={view} />
      <p class="final-score">
        Final score: Team A {view.scores.A}, Team B {view.scores.B} (target {String(view.options?.target_score ?? "")}).
      </p>
      {view.last_hand && <HandSummary hand={view.last_hand} mine={mine} napola={view.options?.napola !== false} />}
      <dl class="seed">
        <div>
          <dt>Seed commitment (shown during the game)</dt>
          <dd>
            <code>{seen}</code>
          </dd>
        </div>
        <div>
          <dt>Seed (revealed now)</dt>
          <dd>
            <code>{view.seed ?? "not revealed"}</code>
          </dd>
        </div>
      </dl>
      <DealCheck id={view.id} commitment={seen} />
      <p>
        <a href="/" class="button">Back to the start page</a>
      </p>
    </section>
  );
}
