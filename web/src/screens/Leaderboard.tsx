// /leaderboard: the best ratings of a game type (rank, name, rating, wins, matches, points), the
// player's own row highlighted, and above it the player's own rating of every game type. Open
// to visitors who are not logged in.

import { useEffect, useState } from "preact/hooks";
import { api, gameTypesCached, errorText } from "../api";
import { tx } from "../i18n";
import type { GameType, Leaderboard, Rating } from "../types";
import { Empty, Failed, Loading } from "../status";
import { GameTypeFilter } from "../widgets";
import { PlayerLink } from "../playerlink";

const DEFAULT_TYPE = "scopone_scientifico";


function MyRatings({ types }: { types: GameType[] }) {
  const [ratings, setRatings] = useState<Rating[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.ratings().then(setRatings, (e) => setError(errorText(e)));
  }, []);
  const name = (id: string) => types.find((t) => t.id === id)?.name ?? id;
  return (
    <section class="panel" aria-labelledby="ratings-title" data-testid="my-ratings">
      <h2 id="ratings-title">{tx("Your ratings", "Il tuo punteggio Elo")}</h2>
      <p class="helper">
        {tx(
          "Everyone starts at 1500 in each game type; a won match raises your rating, a lost one lowers it, by more when the other team was rated higher.",
          "Tutti partono da 1500 in ogni tipo di gioco; una partita vinta alza il punteggio, una persa lo abbassa, di più se l'altra squadra aveva un punteggio più alto.",
        )}
      </p>
      {error && <Failed error={error} />}
      {ratings === null && !error && <Loading />}
      {ratings && ratings.length === 0 && (
        <Empty>{tx("No rating yet: finish a match to get one.", "Nessun punteggio ancora: finisci una partita per averne uno.")}</Empty>
      )}
      {ratings && ratings.length > 0 && (
        <ul class="rating-list">
          {ratings.map((r) => (
            <li key={r.game_type}>
              <span class="rating-type">{name(r.game_type)}</span>
              <strong class="rating-value">{r.rating}</strong>
              <span class="rating-matches">
                {r.matches === 1 ? tx("1 match", "1 partita") : tx(`${r.matches} matches`, `${r.matches} partite`)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function LeaderboardScreen({ me }: { me: string | null }) {
  const [types, setTypes] = useState<GameType[]>([]);
  const [gameType, setGameType] = useState(DEFAULT_TYPE);
  const [board, setBoard] = useState<Leaderboard | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    gameTypesCached().then(
      (list) => {
        setTypes(list);
        if (list.length && !list.some((t) => t.id === DEFAULT_TYPE)) setGameType(list[0].id);
      },
      () => setTypes([]),
    );
  }, []);
  const load = () => {
    setBoard(null);
    setError(null);
    api.leaderboard(gameType).then(setBoard, (e) => setError(errorText(e)));
  };
  useEffect(load, [gameType]);

  return (
    <div class="leaderboard-page" data-testid="screen-leaderboard">
      <section class="panel" aria-labelledby="leaderboard-title">
        <h1 id="leaderboard-title">{tx("Leaderboard", "Classifica")}</h1>
        <p class="helper">
          {tx(
            "The best Elo ratings of every player who finished a match, highest first.",
            "I migliori punteggi Elo di chi ha finito almeno una partita, dal più alto.",
          )}
          {!me && <> {tx("Log in to find yourself in it.", "Accedi per trovarti in classifica.")}</>}
        </p>
        {types.length > 1 && (
          <GameTypeFilter id="leaderboard-type" types={types} value={gameType} onChange={setGameType} />
        )}
        {error && <Failed what={tx("The leaderboard cannot be shown right now: ", "La classifica non si può mostrare ora: ")} error={error} onRetry={load} />}
        {board === null && !error && <Loading />}
        {board && board.entries.length === 0 && (
          <Empty>{tx("Nobody has finished a match yet.", "Nessuno ha ancora finito una partita.")}</Empty>
        )}
        {board && board.entries.length > 0 && (
          <div class="table-scroll">
            <table class="summary leaderboard">
              <caption class="visually-hidden">{tx("Leaderboard", "Classifica")}</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">{tx("Player", "Giocatore")}</th>
                  <th scope="col">Elo</th>
                  <th scope="col">{tx("Wins", "Vittorie")}</th>
                  <th scope="col">{tx("Matches", "Partite")}</th>
                  <th scope="col">{tx("Points", "Punti")}</th>
                </tr>
              </thead>
              <tbody>
                {board.entries.map((e) => {
                  // The entries carry names, not ids: the row with your name is yours.
                  const mine = me !== null && e.name === me;
                  return (
                    <tr key={`${e.rank}-${e.name}`} class={mine ? "is-me" : ""} aria-current={mine ? "true" : undefined} data-testid="leaderboard-row">
                      <td>{e.rank}</td>
                      <th scope="row" class="player-name">
                        <PlayerLink who={e} class="name-text" title={e.name}>{e.name}</PlayerLink>
                        {mine && <span class="you-tag"> ({tx("you", "tu")})</span>}
                      </th>
                      <td>
                        <strong>{e.rating}</strong>
                      </td>
                      <td>{e.wins}</td>
                      <td>{e.matches}</td>
                      <td>{e.points}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {me && <MyRatings types={types} />}
    </div>
  );
}
