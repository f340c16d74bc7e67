// /watch: the tables being played that anyone may watch (GET /api/games/live), the highest rated
// first, each with a Watch link to its spectator's table. The start page shows the first few.

import { useCallback, useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { EyeIcon } from "../chatdrawer";
import { tx } from "../i18n";
import { LIVE_REFRESH_MS, liveProgress, peopleAt, teamNames, watchLinkLabel } from "../live";
import { Empty, Failed, Loading } from "../status";
import type { LiveGame } from "../types";
import { TeamBadge } from "../widgets";

/** The live games, read again every LIVE_REFRESH_MS while the page is visible. */
function useLiveGames(limit: number): { games: LiveGame[] | null; error: string | null; load: () => void } {
  const [games, setGames] = useState<LiveGame[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api.liveGames(limit).then(
      (list) => {
        setGames(list);
        setError(null);
      },
      (e) => setError(errorText(e)),
    );
  }, [limit]);
  useEffect(() => {
    load();
    const refresh = () => {
      if (document.visibilityState === "visible") load();
    };
    const timer = setInterval(refresh, LIVE_REFRESH_MS);
    document.addEventListener("visibilitychange", refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", refresh);
    };
  }, [load]);
  return { games, error, load };
}

function LiveItem({ game }: { game: LiveGame }) {
  const watchers = game.spectators;
  return (
    <li class="live-item" data-testid="live-game" data-game={game.id}>
      <span class="live-teams">
        <span class="live-team"><TeamBadge team="A" mine={false} /> {teamNames(game, "A")}</span>
        <span class="live-vs">{tx("against", "contro")}</span>
        <span class="live-team"><TeamBadge team="B" mine={false} /> {teamNames(game, "B")}</span>
      </span>
      <span class="live-meta">
        <span class="live-progress">{liveProgress(game)}</span>
        {peopleAt(game) > 0 && <span class="live-rating">{tx(`average rating ${game.rating}`, `Elo medio ${game.rating}`)}</span>}
        {watchers > 0 && (
          <span class="live-watchers">
            <EyeIcon /> {tx(`${watchers} watching`, `${watchers} spettator${watchers === 1 ? "e" : "i"}`)}
          </span>
        )}
      </span>
      <a class="button small live-watch" href={`/watch/${game.id}`} aria-label={watchLinkLabel(game)}>
        {tx("Watch", "Guarda")}
      </a>
    </li>
  );
}

/** The list of live tables; `limit` of them, with a link to the whole list when it is short. */
export function LiveTables({ limit, compact = false }: { limit: number; compact?: boolean }) {
  const { games, error, load } = useLiveGames(limit);
  // The start page offers what there is, and says nothing when there is nothing (or no answer).
  if (compact && (error || (games !== null && games.length === 0))) return null;
  return (
    <>
      {error && <Failed what={tx("The tables being played cannot be listed right now: ", "Le partite in corso non si possono elencare ora: ")} error={error} onRetry={load} />}
      {games === null && !error && <Loading />}
      {games && games.length === 0 && (
        <Empty>
          {tx(
            "Nobody is playing at a table open to spectators right now. Come back in a while, or start a game.",
            "Nessuno sta giocando a un tavolo aperto agli spettatori, ora. Torna tra un po', o inizia una partita.",
          )}
        </Empty>
      )}
      {games && games.length > 0 && (
        <ul class="live-list">
          {games.map((g) => <LiveItem key={g.id} game={g} />)}
        </ul>
      )}
    </>
  );
}

/** The start page's few live tables, with the way to the whole list. */
export function WatchTeaser() {
  return (
    <section class="panel" aria-labelledby="watch-teaser-title" data-testid="watch-teaser">
      <h2 id="watch-teaser-title">{tx("Watch a table", "Guarda un tavolo")}</h2>
      <LiveTables limit={3} compact />
      <p>
        <a href="/watch">{tx("All the tables being played", "Tutti i tavoli in corso")}</a>
      </p>
    </section>
  );
}

export function WatchScreen() {
  return (
    <section class="panel" data-testid="screen-watch">
      <h1>{tx("Watch", "Guarda")}</h1>
      <p class="helper">
        {tx(
          "Tables being played now, the strongest first. Watching, you see every seat's cards from the back, the table, the captures and the score, and each play as it comes; you talk with the other spectators.",
          "Le partite in corso, dalle più forti. Da spettatore vedi il dorso delle carte di ogni posto, il tavolo, le prese e il punteggio, e ogni giocata appena arriva; parli con gli altri spettatori.",
        )}
      </p>
      <LiveTables limit={20} />
    </section>
  );
}
