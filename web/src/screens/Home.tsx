// The Play page (the start page once logged in): "Play against the computer" first (the way to
// play at once, alone), then "Play now" and the open tables, the player's unfinished games (a seat
// a bot took over is taken back from there; the ones waiting for the player's move first, with
// the time left), a new game (open to anyone or for friends), joining
// by code. The new game's rules are the ones a game against the computer is played with.

import type { RefObject } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { WatchTeaser } from "./Watch";
import { api, gameTypesCached, errorText } from "../api";
import { botLevels, defaultBotLevel, displayName, playAgainstComputer, type ComputerGame } from "../bots";
import { BotLevelOptions, SeatMarks, useFirstMatch } from "../botmarks";
import { rulesText } from "../describe";
import { serverOffset } from "../clock";
import { timeAgo } from "../countdown";
import { FindTable, findTableError } from "../opentables";
import { navigate } from "../router";
import { defaultsOf, fieldsOf, OptionsForm, typeDescription } from "../schemaform";
import type { GameType, MyGame, Options } from "../types";
import { Empty, Failed, Loading } from "../status";
import { tx } from "../i18n";
import { openInvitations } from "../friends";
import { memberFeed, useMember } from "../membersocket";
import { JoinInvitation } from "../notices";
import { PlayerLink } from "../playerlink";
import { msLeft, nextChangeIn, paceOf, paceText, sortTables, timeLeftText } from "../tables";

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

/** The time left to a game's deadline, said again each time its words change (once a minute
 * for a daily game, once a second in its last minute). */
export function TimeLeft({ deadline }: { deadline: string | null | undefined }) {
  const [, tick] = useState(0);
  const left = msLeft(deadline, Date.now(), serverOffset());
  useEffect(() => {
    const wait = left === null ? null : nextChangeIn(left);
    if (wait === null) return;
    const t = setTimeout(() => tick((n) => n + 1), wait);
    return () => clearTimeout(t);
  });
  if (left === null) return null;
  return (
    <span class={`game-item-left${left < 3_600_000 ? " is-soon" : ""}`} data-testid="time-left">
      {timeLeftText(left)}
    </span>
  );
}

/** "Your tables": every unfinished game, your turn first, with its pace and the time left. */
function MyGames() {
  const [games, setGames] = useState<MyGame[] | null>(null);
  const [types, setTypes] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const member = useMember();
  const load = useCallback(() => {
    api.myGames().then(
      (list) => {
        setGames(sortTables(list));
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
    window.addEventListener("focus", refresh);
    window.addEventListener("online", refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", refresh);
      window.removeEventListener("focus", refresh);
      window.removeEventListener("online", refresh);
    };
  }, [load]);
  // A turn came to the member on /ws/me: that game is read again with the rest.
  const newestTurn = member.turns[0];
  useEffect(() => {
    if (newestTurn) load();
  }, [newestTurn, load]);
  return (
    <section class="panel" aria-labelledby="my-games-title" data-testid="your-tables">
      <h2 id="my-games-title">{tx("Your tables", "I tuoi tavoli")}</h2>
      <p class="helper">
        {tx(
          "Every game you sit at that is not over yet: the ones waiting for your move first, with the time you have left. Open one to go back to your seat.",
          "Tutte le partite non ancora finite a cui sei seduto: prima quelle che aspettano la tua mossa, con il tempo che ti resta. Aprine una per tornare al tuo posto.",
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
          {games.map((g) => {
            const pace = paceOf(g);
            return (
              <li key={g.id} class="game-list-item" data-testid="your-table" data-game={g.id} data-pace={pace}>
                <a href={`/games/${g.id}`} class={`game-item${g.your_turn ? " is-your-turn" : ""}`}>
                  <span class="game-item-head">
                    <span class="game-item-code">{g.join_code}</span>
                    <span class={`badge pace-badge is-${pace}`}>{paceText(pace)}</span>
                    <span class="game-item-type">{types[g.game_type] ?? g.game_type}</span>
                    <span class="game-item-status">{statusText(g)}</span>
                    {g.your_turn && (
                      <span class="badge turn-badge" data-testid="your-turn-badge">
                        {tx("Your turn", "Tocca a te")}
                      </span>
                    )}
                    {g.status !== "lobby" && <TimeLeft deadline={g.deadline} />}
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
            );
          })}
        </ul>
      )}
    </section>
  );
}

/**
 * "Play against the computer", first on the page: one click creates the game with the rules of
 * the new-game form (said here in a line, changed there) and seats the bots, so the table opens at
 * once (or, with a friend, waits only for them). A first match is against principianti.
 */
function PlayAgainstComputer({ type, options, valid, busy, setBusy }: {
  type: GameType | undefined;
  options: Options;
  /** Checks the rules of the form, telling the player what is wrong. */
  valid: () => boolean;
  busy: boolean;
  setBusy: (busy: boolean) => void;
}) {
  const levels = botLevels(type);
  const firstMatch = useFirstMatch();
  const [mode, setMode] = useState<ComputerGame>("alone");
  const [level, setLevel] = useState<string | null>(null);
  const [error, setError] = useState<{ text: string; gameId: string | null } | null>(null);
  if (!type || levels.length === 0) return null;
  const chosen = level !== null && levels.some((l) => l.id === level) ? level : defaultBotLevel(levels, firstMatch === true);
  const titles = Object.fromEntries(fieldsOf(type.options_schema).map((f) => [f.key, f.title]));
  const shownRules = Object.fromEntries(Object.entries(options).filter(([key]) => key !== "player_entropy"));

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
    <section class="panel computer" role="group" aria-labelledby="computer-title" aria-describedby="computer-help" data-testid="play-computer">
      <h2 id="computer-title">{tx("Play against the computer", "Gioca contro il computer")}</h2>
      <p id="computer-help" class="field-help">
        {tx(
          "Bots take the other seats and the cards are dealt at once (with a friend: as soon as they open the invite link). A practice game: no rating changes.",
          "I bot prendono gli altri posti e le carte vengono distribuite subito (con un amico: appena apre il link d'invito). Una partita di allenamento: il punteggio Elo non cambia.",
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
      <p class="computer-rules">
        {tx("Rules: ", "Regole: ")}
        {rulesText(shownRules, titles)}. <a href="#create-title">{tx("Change them under Start a game", "Cambiale in Inizia una partita")}</a>
      </p>
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
    </section>
  );
}

/** The game types and the rules of the new-game form, shared with "Play against the computer". */
interface NewGameRules {
  types: GameType[] | null;
  typeId: string;
  setTypeId: (id: string) => void;
  options: Options;
  setOptions: (options: Options) => void;
  error: string | null;
}

function useNewGameRules(): NewGameRules {
  const [types, setTypes] = useState<GameType[] | null>(null);
  const [typeId, setTypeId] = useState<string>("");
  const [options, setOptions] = useState<Options>({});
  const [error, setError] = useState<string | null>(null);
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
  return { types, typeId, setTypeId, options, setOptions, error };
}

function CreateGame({ rules, busy, setBusy, formRef }: {
  rules: NewGameRules;
  busy: boolean;
  setBusy: (busy: boolean) => void;
  formRef: RefObject<HTMLFormElement>;
}) {
  const { types, typeId, setTypeId, options, setOptions } = rules;
  const [open, setOpen] = useState(false);
  const [watchable, setWatchable] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const type = types?.find((t) => t.id === typeId);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!type) return;
    setBusy(true);
    setError(null);
    try {
      const lobby = await api.createGame(type.id, options, open, watchable);
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
      {types === null && !rules.error && <Loading />}
      {types && (
        <form onSubmit={submit} class="form" ref={formRef} aria-labelledby="create-title">
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
          <div class="field field-check">
            <input
              id="create-watchable"
              type="checkbox"
              checked={watchable}
              aria-describedby="create-watchable-help"
              onChange={(e) => setWatchable((e.currentTarget as HTMLInputElement).checked)}
            />
            <label for="create-watchable">{tx("Others may watch", "Altri possono guardare")}</label>
            <p id="create-watchable-help" class="field-help">
              {tx(
                "Anyone logged in may watch the match from the Watch page (never your cards); fixed once the game is created.",
                "Chiunque abbia un account può guardare la partita dalla pagina Guarda (mai le tue carte); non si cambia dopo la creazione.",
              )}
            </p>
          </div>
          <button type="submit" class="button big" disabled={busy || !type}>
            {tx("Create game", "Crea la partita")}
          </button>
          {/* Right under the button: on a phone the player must see why nothing happened
              without scrolling. */}
          {error && <Failed error={error} />}
          {type && botLevels(type).length > 0 && (
            <p class="field-help">
              {tx(
                "These rules are also the ones of a game against the computer, at the top of the page.",
                "Queste regole valgono anche per una partita contro il computer, in cima alla pagina.",
              )}
            </p>
          )}
        </form>
      )}
      {!types && rules.error && <Failed error={rules.error} />}
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

/** The invitations that hold (GET /api/me/invitations, kept live by the member socket): who
 * invites, the seats, and Join. Nothing at all while there are none. */
function Invitations() {
  const member = useMember();
  useEffect(() => memberFeed.readInvitations(), []);
  const list = openInvitations(member.invitations ?? []);
  if (list.length === 0) return null;
  return (
    <section class="panel invitations" aria-labelledby="invitations-title" data-testid="invitations">
      <h2 id="invitations-title">{list.length === 1 ? tx("An invitation", "Un invito") : tx("Invitations", "Inviti")}</h2>
      <ul class="game-list">
        {list.map((i) => (
          <li key={i.game.id} class="invitation-item" data-testid="invitation" data-game={i.game.id}>
            <span class="invitation-head">
              <span class="invitation-who">
                {tx("Invited by ", "Invito di ")}
                <PlayerLink who={i.by} class="name-text" title={i.by.name}>{i.by.name}</PlayerLink>
              </span>
              <span class="game-item-when">{timeAgo(i.at, Date.now(), serverOffset())}</span>
            </span>
            <span class="game-item-players">
              {[0, 1, 2, 3].map((seat) => {
                const p = i.game.players.find((x) => x.seat === seat);
                return (
                  <span key={seat} class={`chip team-${seat % 2 === 0 ? "A" : "B"}${p ? "" : " is-open"}`}>
                    {p ? displayName(p) : tx("open", "libero")}
                    {p && <> <SeatMarks player={p} yours={false} /></>}
                  </span>
                );
              })}
            </span>
            <JoinInvitation invitation={i} />
          </li>
        ))}
      </ul>
    </section>
  );
}

export function HomeScreen() {
  const rules = useNewGameRules();
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const type = rules.types?.find((t) => t.id === rules.typeId);
  return (
    <div class="home" data-testid="screen-home">
      <h1 class="visually-hidden">{tx("Play", "Gioca")}</h1>
      <Invitations />
      <div class="home-start">
        <PlayAgainstComputer
          key={type?.id}
          type={type}
          options={rules.options}
          valid={() => formRef.current?.reportValidity() ?? true}
          busy={busy}
          setBusy={setBusy}
        />
        <FindTable />
      </div>
      <MyGames />
      <WatchTeaser />
      <div class="home-columns">
        <CreateGame rules={rules} busy={busy} setBusy={setBusy} formRef={formRef} />
        <JoinWithCode />
      </div>
    </div>
  );
}
