// A form generated from a game type's options_schema (JSON Schema): integers become number
// inputs with their bounds, booleans checkboxes, a list of values (`enum`) a select; the title labels a field and the description
// explains it. New options of a game type then need no change here.

import { lang, tx } from "./i18n";
import { paceChoiceText } from "./tables";
import type { JsonSchemaProperty, OptionsSchema, Options } from "./types";

// The server describes its games and options in English; the ones it has today are said in
// Italian here too (a new option shows the server's words until it is added).
const ITALIAN_OPTIONS: Record<string, { title: string; description: string }> = {
  target_score: {
    title: "Punteggio obiettivo",
    description: "La partita finisce quando una squadra lo raggiunge con un vantaggio (in caso di parità si gioca un'altra mano).",
  },
  napola: {
    title: "Napola",
    description: "Una scala di denari dall'asso vale la sua lunghezza da tre carte in su; tutti e dieci vincono la partita.",
  },
  asso_pigliatutto: {
    title: "Asso pigliatutto",
    description: "Un asso giocato senza assi sul tavolo prende tutto il tavolo (mai scopa).",
  },
};

/** Options the app words itself in both languages, whatever the server's description says. */
const OWN_OPTIONS: Record<string, { en: { title: string; description: string }; it: { title: string; description: string } }> = {
  pace: {
    en: {
      title: "Pace",
      description: "Live: everyone at the table together, 30 seconds a move. Daily: each player moves when they can, within a day; the start page lists your tables, the ones waiting for you first.",
    },
    it: {
      title: "Ritmo",
      description: "Dal vivo: tutti al tavolo insieme, 30 secondi a mossa. Giornaliera: ognuno gioca quando può, entro un giorno; la pagina iniziale elenca i tuoi tavoli, prima quelli che aspettano te.",
    },
  },
  player_entropy: {
    en: {
      title: "Players shuffle too",
      description: "Every player adds a secret random number to the shuffle, so nobody — not even the server — chooses the cards.",
    },
    it: {
      title: "Anche i giocatori mescolano",
      description: "Ogni giocatore aggiunge un numero casuale segreto al mescolamento, così nessuno — nemmeno il server — sceglie le carte.",
    },
  },
};

/** The words of the values of a choice (an option with an `enum`), in both languages. */
const OWN_CHOICES: Record<string, Record<string, () => string>> = {
  pace: { live: () => paceChoiceText("live"), daily: () => paceChoiceText("daily") },
};

/** The app's own defaults, over the schema's: the players' entropy is on unless turned off. */
const APP_DEFAULTS: Record<string, unknown> = { player_entropy: true };

const ITALIAN_TYPES: Record<string, string> = {
  scopone_scientifico:
    "Il gioco di carte italiano a coppie: quattro giocatori in due squadre, dieci carte a testa e il tavolo vuoto; si prende per valore uguale o per somma, chi pulisce il tavolo fa scopa, e si contano carte, denari, settebello, primiera e napola.",
};

/** A game type's description in the current language (the server's own when there is none). */
export function typeDescription(type: { id: string; description: string }): string {
  return (lang() === "it" && ITALIAN_TYPES[type.id]) || type.description;
}

export interface Field {
  key: string;
  kind: "integer" | "number" | "boolean" | "string" | "choice";
  title: string;
  description?: string;
  min?: number;
  max?: number;
  /** A choice's values, each with its words. */
  choices?: { value: string; label: string }[];
  default: unknown;
}

/** The values of an option that takes one of a list (JSON Schema `enum` of strings). */
function choicesOf(key: string, p: JsonSchemaProperty): { value: string; label: string }[] | undefined {
  const values = p.enum;
  if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === "string")) return undefined;
  return (values as string[]).map((value) => ({ value, label: OWN_CHOICES[key]?.[value]?.() ?? value }));
}

export function fieldsOf(schema: OptionsSchema | undefined): Field[] {
  const props = schema?.properties ?? {};
  // An option the server sets (readOnly, such as first_dealer) is no choice of the player's.
  return Object.entries(props).filter(([, p]) => !p.readOnly).map(([key, p]) => {
    const choices = choicesOf(key, p);
    const kind: Field["kind"] = choices
      ? "choice"
      : p.type === "integer" || p.type === "number" || p.type === "boolean" ? p.type : "string";
    const fallback = kind === "boolean" ? false : kind === "string" ? "" : choices ? choices[0].value : (p.minimum ?? 0);
    const own = OWN_OPTIONS[key]?.[lang()];
    const italian = own ?? (lang() === "it" ? ITALIAN_OPTIONS[key] : undefined);
    return {
      key,
      kind,
      title: italian?.title ?? p.title ?? key.replace(/_/g, " "),
      description: italian?.description ?? p.description,
      min: p.minimum,
      max: p.maximum,
      choices,
      default: key in APP_DEFAULTS ? APP_DEFAULTS[key] : (p.default ?? fallback),
    };
  });
}

export function defaultsOf(schema: OptionsSchema | undefined): Options {
  return Object.fromEntries(fieldsOf(schema).map((f) => [f.key, f.default]));
}

/** The value a number input holds, as the schema wants it (an integer field keeps whole numbers). */
export function parseNumber(field: Field, raw: string): number | string {
  if (raw.trim() === "") return raw;
  const n = Number(raw);
  if (Number.isNaN(n)) return raw;
  return field.kind === "integer" ? Math.trunc(n) : n;
}

export function OptionsForm({
  schema,
  values,
  onChange,
}: {
  schema: OptionsSchema | undefined;
  values: Options;
  onChange: (values: Options) => void;
}) {
  const fields = fieldsOf(schema);
  if (fields.length === 0) return <p class="helper">{tx("This game has no options.", "Questo gioco non ha opzioni.")}</p>;
  return (
    <div class="options-form">
      {fields.map((f) => {
        const id = `option-${f.key}`;
        const help = f.description ? `${id}-help` : undefined;
        const set = (v: unknown) => onChange({ ...values, [f.key]: v });
        if (f.kind === "boolean") {
          return (
            <div class="field field-check" key={f.key}>
              <input
                id={id}
                type="checkbox"
                checked={Boolean(values[f.key])}
                aria-describedby={help}
                onChange={(e) => set((e.currentTarget as HTMLInputElement).checked)}
              />
              <label for={id}>{f.title}</label>
              {help && <p id={help} class="field-help">{f.description}</p>}
            </div>
          );
        }
        if (f.kind === "choice") {
          return (
            <div class="field" key={f.key}>
              <label for={id}>{f.title}</label>
              <select id={id} value={String(values[f.key] ?? f.default)} aria-describedby={help}
                onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}>
                {(f.choices ?? []).map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
              </select>
              {help && <p id={help} class="field-help">{f.description}</p>}
            </div>
          );
        }
        return (
          <div class="field" key={f.key}>
            <label for={id}>{f.title}</label>
            <input
              id={id}
              type={f.kind === "string" ? "text" : "number"}
              min={f.min}
              max={f.max}
              step={f.kind === "integer" ? 1 : undefined}
              inputMode={f.kind === "integer" ? "numeric" : undefined}
              value={String(values[f.key] ?? "")}
              aria-describedby={help}
              required
              onInput={(e) => {
                const raw = (e.currentTarget as HTMLInputElement).value;
                set(f.kind === "string" ? raw : parseNumber(f, raw));
              }}
            />
            {help && <p id={help} class="field-help">{f.description}{rangeText(f)}</p>}
          </div>
        );
      })}
    </div>
  );
}

function rangeText(f: Field): string {
  if (f.min !== undefined && f.max !== undefined) return tx(` (${f.min} to ${f.max})`, ` (da ${f.min} a ${f.max})`);
  return "";
}
