// /join/<CODE>: what the invitation is for, then a seat at the table.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, gameTypesCached, errorText } from "../api";
import { displayName } from "../bots";
import { SeatMarks } from "../botmarks";
import { joinErrorText } from "../friends";
import { PlayerLink } from "../playerlink";
import { navigate } from "../router";
import { fieldsOf, typeDescription } from "../schemaform";
import type { GameType, Options, Preview } from "../types";
import { Failed, Loading } from "../status";
import { tx } from "../i18n";

export function OptionsList({ options, gameType }: { options: Options; gameType?: string }) {
  const [types, setTypes] = useState<GameType[] | null>(null);
  useEffect(() => {
    gameTypesCached().then(setTypes, () => setTypes([]));
  }, []);
  const schema = types?.find((t) => t.id === gameType)?.options_schema;
  const titles = Object.fromEntries(fieldsOf(schema).map((f) => [f.key, f.title]));
  return (
    <dl class="options-list">
      {Object.entries(options).map(([key, value]) => (
        <div key={key}>
          <dt>{titles[key] ?? key.replace(/_/g, " ")}</dt>
          <dd>{typeof value === "boolean" ? (value ? tx("on", "sì") : tx("off", "no")) : String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

export function JoinScreen({ code, onUnauthenticated }: { code: string; onUnauthenticated: () => void }) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [notFound, setNotFound] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setPreview(null);
    setNotFound(false);
    setError(null);
    api.preview(code).then(setPreview, (e) => {
      if (e instanceof ApiError && e.status === 401) return onUnauthenticated();
      if (e instanceof ApiError && e.status === 404) return setNotFound(true);
      setError(errorText(e));
    });
  }, [code]);

  const join = async () => {
    setBusy(true);
    setError(null);
    try {
      const view = await api.joinGame(code);
      navigate(`/games/${view.id}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return onUnauthenticated();
      if (e instanceof ApiError && e.status === 404) setNotFound(true);
      else setError(joinErrorText(e));
      setBusy(false);
    }
  };

  if (notFound) {
    return (
      <section class="panel" data-testid="screen-join">
        <h1>{tx("Game not found", "Partita non trovata")}</h1>
        <Failed error={tx(`Game not found: no game has the code ${code}.`, `Partita non trovata: nessuna partita ha il codice ${code}.`)} />
        <p class="helper">
          {tx(
            "Check the code with the friend who sent it: codes are six characters, without 0, O, 1, I or L. A game that never filled up expires after a while.",
            "Controlla il codice con l'amico che te l'ha mandato: i codici hanno sei caratteri, senza 0, O, 1, I o L. Una partita che non si è mai riempita scade dopo un po'.",
          )}
        </p>
        <p>
          <a href="/" class="button secondary">{tx("Back to the start page", "Torna alla pagina iniziale")}</a>
        </p>
      </section>
    );
  }

  return (
    <section class="panel" data-testid="screen-join">
      <h1>{tx(`Join game ${code}`, `Unisciti alla partita ${code}`)}</h1>
      <p class="helper">
        {preview && preview.seats_open === 0
          ? tx(
              `This table is full${preview.status === "lobby" ? "" : " and its game has started"}. If you are one of its four players, Join game takes you back to your seat; anyone else needs a table of their own.`,
              `Questo tavolo è pieno${preview.status === "lobby" ? "" : " e la partita è iniziata"}. Se sei uno dei quattro giocatori, "Unisciti alla partita" ti riporta al tuo posto; gli altri hanno bisogno di un tavolo loro.`,
            )
          : tx(
              "You were invited to a table. Check the rules below, then take a seat; the game starts as soon as all four seats are taken.",
              "Sei stato invitato a un tavolo. Guarda le regole qui sotto, poi siediti; la partita inizia appena tutti e quattro i posti sono presi.",
            )}
      </p>
      {!preview && !error && <Loading />}
      {preview && (
        <div class="preview">
          <h2>{preview.name}</h2>
          {preview.description && <p>{typeDescription({ id: preview.game_type, description: preview.description })}</p>}
          <h3>{tx("Rules of this table", "Regole di questo tavolo")}</h3>
          <OptionsList options={preview.options} gameType={preview.game_type} />
          <h3>{tx("At the table", "Al tavolo")}</h3>
          <ul class="seat-list">
            {[0, 1, 2, 3].map((seat) => {
              const p = preview.players.find((x) => x.seat === seat);
              return (
                <li key={seat} class={`seat-row team-${seat % 2 === 0 ? "A" : "B"}`}>
                  <span class="seat-team">{tx("Team", "Squadra")} {seat % 2 === 0 ? "A" : "B"}</span>
                  <span class="seat-name">
                    {p ? <PlayerLink who={p} class="seat-name-text">{displayName(p)}</PlayerLink> : <em>{tx("open", "libero")}</em>}
                  </span>
                  {p && <SeatMarks player={p} />}
                </li>
              );
            })}
          </ul>
          <p class="seats-open">
            {preview.seats_open === 0
              ? tx("No seat is open.", "Nessun posto libero.")
              : preview.seats_open === 1
                ? tx("1 seat open.", "1 posto libero.")
                : tx(`${preview.seats_open} seats open.`, `${preview.seats_open} posti liberi.`)}
          </p>
          <button type="button" class="button big" onClick={join} disabled={busy}>
            {tx("Join game", "Unisciti alla partita")}
          </button>
        </div>
      )}
      {error && <Failed error={error} />}
    </section>
  );
}
