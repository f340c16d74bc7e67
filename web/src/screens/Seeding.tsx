// Status `seeding` (player entropy): before hand 1 every seat adds a secret random value to the
// shuffle. The browser does it by itself (entropy.ts); this screen says what is happening, each
// seat's state and the phase's countdown.

import type { ComponentChildren } from "preact";
import { displayName } from "../bots";
import { entropyOf, seatState, type OwnEntropy, type SeedingView } from "../entropy";
import { tx } from "../i18n";
import { Countdown } from "../widgets";

export function SeedingScreen({ view, own, alert }: { view: SeedingView; own: OwnEntropy; alert?: ComponentChildren }) {
  const entropy = entropyOf(view);
  const phase = entropy?.phase ?? "commit";
  const players = [...view.players].sort((a, b) => a.seat - b.seat);
  return (
    <section class="panel seeding" data-testid="screen-seeding" aria-labelledby="seeding-title">
      {alert}
      <h1 id="seeding-title">{tx("Shuffling together", "Mescoliamo insieme")}</h1>
      <p class="helper">
        {tx(
          "Every player adds a secret random number to the shuffle, so nobody — not even the server — chooses the cards. Your browser does it for you: first it sends a fingerprint of its number, then the number itself.",
          "Ogni giocatore aggiunge un numero casuale segreto al mescolamento, così nessuno — nemmeno il server — sceglie le carte. Lo fa il tuo browser: prima invia un'impronta del suo numero, poi il numero stesso.",
        )}
      </p>
      <p class="seeding-phase" role="status">
        <strong>
          {phase === "commit"
            ? tx("Step 1 of 2: fingerprints", "Passo 1 di 2: impronte")
            : tx("Step 2 of 2: numbers revealed", "Passo 2 di 2: numeri rivelati")}
        </strong>{" "}
        <Countdown deadline={entropy?.deadline} label={tx("Time left", "Tempo rimasto")} />
      </p>
      <ul class="seeding-seats" aria-label={tx("Seats", "Posti")}>
        {players.map((p) => {
          const state = entropy ? seatState(entropy, p.seat) : "waiting";
          const label =
            state === "revealed"
              ? tx("revealed", "rivelato")
              : state === "committed"
                ? tx("committed", "impronta inviata")
                : tx("waiting", "in attesa");
          return (
            <li key={p.seat} class={`seeding-seat is-${state}`} data-testid={`seeding-seat-${p.seat}`}>
              <span class="seeding-name">
                {displayName(p)}
                {p.is_you ? tx(" (you)", " (tu)") : ""}
              </span>{" "}
              <span class="seeding-state">{label}</span>
            </li>
          );
        })}
      </ul>
      {own === "lost" && (
        <p class="seeding-lost" role="alert" data-testid="seeding-lost">
          {tx(
            "This page does not have your number (it was drawn in another browser, device or tab, or storage was cleared): unless that page reveals it, your seat adds nothing this time. The deal is still fair.",
            "Questa pagina non ha il tuo numero (è stato scelto in un altro browser, dispositivo o scheda, o la memoria è stata cancellata): se quella pagina non lo rivela, questa volta il tuo posto non aggiunge nulla. La smazzata resta equa.",
          )}
        </p>
      )}
      <p class="helper seeding-commitment">
        {tx("Seed commitment: ", "Impronta del seed: ")}
        <code>{view.seed_commitment}</code>
      </p>
    </section>
  );
}
