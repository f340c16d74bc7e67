// The Play page (the start page once logged in): "Play now" and the open tables, the player's
// unfinished games, a new game (open to anyone or for friends), joining by code.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, gameTypesCached, errorText } from "../api";
import { botLevels, defaultBotLevel, displayName, playAgainstComputer, type ComputerGame } from "../bots";
import { BotLevelOptions, SeatMarks } from "../botmarks";
import { serverOffset } from "../clock";
import { timeAgo } from "../countdown";
import { FindTable, findTableError } from "../opentables";
import { navigate } from "../router";
import { defaultsOf, OptionsForm, typeDescription } from "../schemaform";
import type { GameType, MyGame, Options } from "../types";
import { Empty, Failed, Loading } from "../status";
import { tx } from "../i18n";

export function statusText(game: Pick<MyGame, "status" | "seats_open">): string {
  switch (game.status) {
    case "lobby":
      return game.seats_open === 1
        ? tx("Waiting for 1 more player", "Manca 1 giocatore")
        : tx(`Waiting for ${game.seats_open} more players`, `Mancano ${game.seats_open} giocatori`);
    case "seeding":
      return tx("Shuffling together, cards soon", "Si mescola insieme, tra poco le carte");
    case "playing":
      return tx("Playing", "In corso");
    case "hand_end":
      return tx("Hand over, next hand soon", "Mano finita, tra poco la prossima");
    default:
      return game.status;
  }
}

const LIST_REFRESH_MS = 15_000;

/** A bot plays your seat of this game (you left it, or your turns timed out with no page open). */
export function seatTakenOver(game: Pick<MyGame, "status" | "players">): boolean {
  return game.status !== "lobby" && game.players.some((p) => p.is_you && p.took_over);
}

/** "Take my seat back" from the start page: the bot leaves the seat, and the table opens. */
function TakeMySeatBack({ game }: { game: MyGame }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const take = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.returnToSeat(game.id);
      return navigate(`/games/${game.id}`);
    } catch (e) {
      setError(errorText(e));
    }
    setBusy(false);
  };
  return (
    <div class="game-item-takeover" data-testid="taken-over">
      <span>{tx(`A bot is playing your seat at ${game.join_code}.`, `Un bot sta giocando al tuo posto in ${game.join_code}.`)}</span>
      <button type="button" class="button small" disabled={busy} onClick={() => void take()}>
        {tx("Take my seat back", "Riprendi il mio posto")}
      </button>
      {error && <Failed error={error} />}
    </div>
  );
}

function MyGames() {
  const [games, setGames] = useState<MyGame[] | null>(null);
  const [types, setTypes] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api.myGames().then(
      (list) => {
        setGames(list);
        setError(null);
      },
      (e) => setError(errorText(e)),
    );
  }, []);
  useEffect(() => {
    load();
    gameTypesCached().then((list) => setTypes(Object.fromEntries(list.map((t) => [t.id, t.name]))), () => undefined);
    // The list goes stale while the page sits open ("Your turn" comes and goes, seats fill):
    // read it again now and then while the page is visible, and when the player comes back to it.
    const refresh = () => {
      if (document.visibilityState === "visible") load();
    };
    const timer = setInterval(refresh, LIST_REFRESH_MS);
    document.addEventListener("visibilitychange", refresh);
    window.addEventListener("online", refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", refresh);
      window.removeEventListener("online", refresh);
    };
  }, [load]);
  return (
    <section class="panel" aria-labelledby="my-games-title">
      <h2 id="my-games-title">{tx("Your games", "Le tue partite")}</h2>
      <p class="helper">
        {tx(
          "Games you sit at that are not over yet, the most recent first. Open one to go back to your seat.",
          "Le partite non ancora finite a cui sei seduto, dalla più recente. Aprine una per tornare al tuo posto.",
        )}
      </p>
      {error && <Failed what={tx("Your games cannot be listed right now: ", "Le tue partite non si possono elencare ora: ")} error={error} onRetry={load} />}
      {games === null && !error && <Loading />}
      {games && games.length === 0 && (
        <Empty>
          {tx(
            "You have no unfinished games. Start one below, or join a friend's with a code.",
            "Non hai partite in corso. Iniziane una qui sotto, o unisciti a quella di un amico con un codice.",
          )}
        </Empty>
      )}
      {games && games.length > 0 && (
        <ul class="game-list">
          {games.map((g) => (
            <li key={g.id} class="game-list-item">
              <a href={`/games/${g.id}`} class={`game-item${g.your_turn ? " is-your-turn" : ""}`}>
                <span class="game-item-head">
                  <span class="game-item-code">{g.join_code}</span>
                  <span class="game-item-type">{types[g.game_type] ?? g.game_type}</span>
                  <span class="game-item-status">{statusText(g)}</span>
                  {g.your_turn && (
                    <span class="badge turn-badge" data-testid="your-turn-badge">
                      {tx("Your turn", "Tocca a te")}
                    </span>
                  )}
                </span>
                <span class="game-item-players">
                  {[0, 1, 2, 3].map((seat) => {
                    const p = g.players.find((x) => x.seat === seat);
                    return (
                      <span key={seat} class={`chip team-${seat % 2 === 0 ? "A" : "B"}`}>
                        {p ? `${displayName(p)}${p.is_you ? tx(" (you)", " (tu)") : ""}` : tx("open", "libero")}
                        {p && <> <SeatMarks player={p} yours={p.is_you} /></>}
                      </span>
                    );
                  })}
                  <span class="game-item-when">{timeAgo(g.updated_at, Date.now(), serverOffset())}</span>
                </span>
              </a>
              {seatTakenOver(g) && <TakeMySeatBack game={g} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * "Play against the computer": one click creates the game with the rules of the form and seats
 * the bots, so the table opens at once (or, with a friend, waits only for them).
 */
function PlayAgainstComputer({ type, options, valid, busy, setBusy }: {
  type: GameType;
  options: Options;
  /** Checks the rules of the form, telling the player what is wrong. */
  valid: () => boolean;
  busy: boolean;
  setBusy: (busy: boolean) => void;
}) {
  const levels = botLevels(type);
  const [mode, setMode] = useState<ComputerGame>("alone");
  const [level, setLevel] = useState(defaultBotLevel(levels));
  const [error, setError] = useState<{ text: string; gameId: string | null } | null>(null);
  if (levels.length === 0) return null;
  const chosen = levels.some((l) => l.id === level) ? level : defaultBotLevel(levels);

  const start = async () => {
    if (!valid()) return;
    setBusy(true);
    setError(null);
    try {
      const started = await playAgainstComputer(type.id, options, mode, chosen);
      if (started.error === null) return navigate(`/games/${started.id}`);
      setError({ text: started.error, gameId: started.id });
    } catch (e) {
      setError({ text: errorText(e), gameId: null });
    }
    setBusy(false);
  };

  return (
    <fieldset class="computer" aria-describedby="computer-help">
      <legend>{tx("Play against the computer", "Gioca contro il computer")}</legend>
      <p id="computer-help" class="field-help">
        {tx(
          "One click starts a practice game with these rules and bots in the other seats, so the cards are dealt at once (or as soon as your friend opens the invite link); no rating changes.",
          "Un clic avvia una partita di allenamento con queste regole e dei bot negli altri posti, così le carte vengono distribuite subito (o appena il tuo amico apre il link d'invito); il punteggio Elo non cambia.",
        )}
      </p>
      <div class="computer-choices">
        <div class="field">
          <label for="computer-mode">{tx("Who plays", "Chi gioca")}</label>
          <select id="computer-mode" value={mode} disabled={busy}
            onChange={(e) => setMode((e.currentTarget as HTMLSelectElement).value as ComputerGame)}>
            <option value="alone">{tx("You and three bots", "Tu e tre bot")}</option>
            <option value="with-friend">{tx("You and a friend against two bots", "Tu e un amico contro due bot")}</option>
          </select>
        </div>
        <div class="field">
          <label for="computer-level">{tx("Bot level", "Livello dei bot")}</label>
          <select id="computer-level" value={chosen} disabled={busy}
            onChange={(e) => setLevel((e.currentTarget as HTMLSelectElement).value)}>
            <BotLevelOptions levels={levels} />
          </select>
        </div>
      </div>
      <button type="button" class="button big" disabled={busy} onClick={() => void start()}>
        {tx("Play against the computer", "Gioca contro il computer")}
      </button>
      {error && (
        <Failed
          error={
            <>
              {error.text}
              {error.gameId && (
                <>
                  {" "}
                  <a href={`/games/${error.gameId}`}>
                    {tx("Open the new table to seat the bots there.", "Apri il nuovo tavolo per farli sedere da lì.")}
                  </a>
                </>
              )}
            </>
          }
        />
      )}
    </fieldset>
  );
}

function CreateGame() {
  const [types, setTypes] = useState<GameType[] | null>(null);
  const [typeId, setTypeId] = useState<string>("");
  const [options, setOptions] = useState<Options>({});
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    gameTypesCached().then(
      (list) => {
        setTypes(list);
        if (list.length > 0) {
          setTypeId(list[0].id);
          setOptions(defaultsOf(list[0].options_schema));
        }
      },
      (e) => setError(errorText(e)),
    );
  }, []);
  const type = types?.find((t) => t.id === typeId);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!type) return;
    setBusy(true);
    setError(null);
    try {
      const lobby = await api.createGame(type.id, options, open);
      navigate(`/games/${lobby.id}`);
    } catch (e) {
      setError(findTableError(e));
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="create-title">
      <h2 id="create-title">{tx("Start a game", "Inizia una partita")}</h2>
      <p class="helper">
        {tx(
          "Pick the rules, create the table, then send its join code to three friends, or open it to anyone. You take the first seat, in team A.",
          "Scegli le regole, crea il tavolo, poi manda il codice a tre amici, o aprilo a tutti. Tu prendi il primo posto, nella squadra A.",
        )}
      </p>
      {types === null && !error && <Loading />}
      {types && (
        <form onSubmit={submit} class="form" ref={formRef}>
          {types.length > 1 ? (
            <div class="field">
              <label for="game-type">{tx("Game type", "Tipo di gioco")}</label>
              <select
                id="game-type"
                value={typeId}
                onChange={(e) => {
                  const id = (e.currentTarget as HTMLSelectElement).value;
                  setTypeId(id);
                  setOptions(defaultsOf(types.find((t) => t.id === id)?.options_schema));
                }}
              >
                {types.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            type && <p class="game-type-name">{tx("Game type: ", "Tipo di gioco: ")}<strong>{type.name}</strong></p>
          )}
          {type && <p class="field-help">{typeDescription(type)}</p>}
          {type && <OptionsForm schema={type.options_schema} values={options} onChange={setOptions} />}
          <div class="field field-check">
            <input
              id="create-open"
              type="checkbox"
              checked={open}
              aria-describedby="create-open-help"
              onChange={(e) => setOpen((e.currentTarget as HTMLInputElement).checked)}
            />
            <label for="create-open">{tx("Open to anyone", "Aperto a tutti")}</label>
            <p id="create-open-help" class="field-help">
              {tx(
                "Lists the table under Open tables, so anyone can take a seat; the join code works as well.",
                "Il tavolo compare tra i Tavoli aperti, così chiunque può sedersi; il codice funziona lo stesso.",
              )}
            </p>
          </div>
          <button type="submit" class="button big" disabled={busy || !type}>
            {tx("Create game", "Crea la partita")}
          </button>
          {/* Right under the button, not past "Play against the computer": on a phone the
              player must see why nothing happened without scrolling. */}
          {error && <Failed error={error} />}
          {type && (
            <PlayAgainstComputer
              key={type.id}
              type={type}
              options={options}
              valid={() => formRef.current?.reportValidity() ?? true}
              busy={busy}
              setBusy={setBusy}
            />
          )}
        </form>
      )}
      {!types && error && <Failed error={error} />}
    </section>
  );
}

function JoinWithCode() {
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <section class="panel" aria-labelledby="join-title">
      <h2 id="join-title">{tx("Join with a code", "Unisciti con un codice")}</h2>
      <p class="helper">
        {tx(
          "A friend started a game? Type the six-character code they sent you.",
          "Un amico ha iniziato una partita? Scrivi il codice di sei caratteri che ti ha mandato.",
        )}
      </p>
      <form
        class="form inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const clean = code.replace(/[^A-Za-z0-9]/g, "").toUpperCase();
          if (!clean) return setError(tx("Type a join code first.", "Scrivi prima un codice."));
          navigate(`/join/${clean}`);
        }}
      >
        <div class="field">
          <label for="join-code-input">{tx("Join code", "Codice")}</label>
          <input
            id="join-code-input"
            class="code-input"
            value={code}
            autoComplete="off"
            autoCapitalize="characters"
            spellcheck={false}
            maxLength={12}
            placeholder="K7QX2M"
            onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" class="button">
          {tx("Join", "Unisciti")}
        </button>
      </form>
      {error && <Failed error={error} />}
    </section>
  );
}

export function HomeScreen() {
  return (
    <div class="home" data-testid="screen-home">
      <h1 class="visually-hidden">{tx("Play", "Gioca")}</h1>
      <FindTable />
      <MyGames />
      <div class="home-columns">
        <CreateGame />
        <JoinWithCode />
      </div>
    </div>
  );
}
