// /join/<CODE>: what the invitation is for, then a seat at the table.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, gameTypesCached } from "../api";
import { navigate } from "../router";
import { fieldsOf } from "../schemaform";
import type { GameType, Options, Preview } from "../types";
import { Alert } from "../widgets";

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
          <dd>{typeof value === "boolean" ? (value ? "on" : "off") : String(value)}</dd>
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
      setError(e instanceof ApiError ? e.detail : String(e));
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
      else setError(e instanceof ApiError ? e.detail : String(e));
      setBusy(false);
    }
  };

  if (notFound) {
    return (
      <section class="panel" data-testid="screen-join">
        <h1>Game not found</h1>
        <Alert>Game not found: no game has the code {code}.</Alert>
        <p class="helper">Check the code with the friend who sent it: codes are six characters, without 0, O, 1, I or L. A game that never filled up expires after a while.</p>
        <p>
          <a href="/" class="button secondary">Back to the start page</a>
        </p>
      </section>
    );
  }

  return (
    <section class="panel" data-testid="screen-join">
      <h1>Join game {code}</h1>
      <p class="helper">
        {preview && preview.seats_open === 0
          ? `This table is full${preview.status === "lobby" ? "" : " and its game has started"}. If you are one of its four players, Join game takes you back to your seat; anyone else needs a table of their own.`
          : "You were invited to a table. Check the rules below, then take a seat; the game starts as soon as all four seats are taken."}
      </p>
      {!preview && !error && <p class="loading">Loading…</p>}
      {preview && (
        <div class="preview">
          <h2>{preview.name}</h2>
          {preview.description && <p>{preview.description}</p>}
          <h3>Rules of this table</h3>
          <OptionsList options={preview.options} gameType={preview.game_type} />
          <h3>At the table</h3>
          <ul class="seat-list">
            {[0, 1, 2, 3].map((seat) => {
              const p = preview.players.find((x) => x.seat === seat);
              return (
                <li key={seat} class={`seat-row team-${seat % 2 === 0 ? "A" : "B"}`}>
                  <span class="seat-team">Team {seat % 2 === 0 ? "A" : "B"}</span>
                  <span class="seat-name">{p ? p.name : <em>open</em>}</span>
                </li>
              );
            })}
          </ul>
          <p class="seats-open">
            {preview.seats_open === 0
              ? "No seat is open."
              : `${preview.seats_open} seat${preview.seats_open === 1 ? "" : "s"} open.`}
          </p>
          <button type="button" class="button big" onClick={join} disabled={busy}>
            Join game
          </button>
        </div>
      )}
      {error && <Alert>{error}</Alert>}
    </section>
  );
}
