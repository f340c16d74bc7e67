// /rules: how scopone scientifico is played here, in both languages; open to everyone (the table
// links to it, in a new tab).

import { tx } from "../i18n";

const PRIMIERA: [string, string, number][] = [
  ["7", "7", 21],
  ["6", "6", 18],
  ["ace", "asso", 16],
  ["5", "5", 15],
  ["4", "4", 14],
  ["3", "3", 13],
  ["2", "2", 12],
  ["fante, cavallo, re", "figure (fante, cavallo, re)", 10],
];

export function RulesScreen() {
  return (
    <article class="panel rules" data-testid="screen-rules" aria-labelledby="rules-title">
      <h1 id="rules-title">{tx("The rules of scopone scientifico", "Le regole dello scopone scientifico")}</h1>
      <p class="lead">
        {tx(
          "Four players in two teams, forty cards, and one aim: take more of the cards that score. Partners sit across from each other and play in turn, counter-clockwise.",
          "Quattro giocatori in due squadre, quaranta carte e un solo scopo: fare più punti degli avversari con le carte che si prendono. I compagni siedono uno di fronte all'altro e si gioca a turno, in senso antiorario.",
        )}
      </p>

      <h2>{tx("Players and cards", "Giocatori e carte")}</h2>
      <ul>
        <li>
          {tx(
            "Team A holds seats 1 and 3, team B seats 2 and 4: partners face each other, and each player has an opponent on either side.",
            "La squadra A ha i posti 1 e 3, la squadra B i posti 2 e 4: i compagni stanno uno di fronte all'altro e ogni giocatore ha un avversario a destra e uno a sinistra.",
          )}
        </li>
        <li>
          {tx(
            "The Italian deck has four suits (denari, coppe, spade, bastoni) of ten cards: the ace (1), 2 to 7, and three figures, fante (8), cavallo (9) and re (10).",
            "Il mazzo di carte italiane ha quattro semi (denari, coppe, spade, bastoni) di dieci carte ciascuno: l'asso (1), le carte dal 2 al 7 e tre figure, cioè il fante (8), il cavallo (9) e il re (10).",
          )}
        </li>
        <li>
          {tx(
            "Each hand deals all forty cards, ten to each player, and the table starts empty: that is what makes the scopone \"scientifico\", since every card can be reasoned about. The first dealer is drawn by lot, from the game's seed; the player after the dealer leads, and each next hand is dealt by the next player.",
            "A ogni mano si distribuiscono tutte e quaranta le carte, dieci a testa, e sul tavolo non si scopre nessuna carta: è questo che rende lo scopone \"scientifico\", perché si può ragionare su ogni carta. Il primo mazziere è estratto a sorte dal seed della partita; è di mano chi siede dopo di lui, e a ogni mano successiva il mazzo passa al giocatore seguente.",
          )}
        </li>
      </ul>

      <h2>{tx("A turn", "Un turno")}</h2>
      <ol>
        <li>
          {tx(
            "You play one card from your hand. If a table card has the same rank, you must take it (you choose which, when there are several).",
            "Giochi una delle tue carte. Se sul tavolo c'è una carta dello stesso valore, devi prenderla (se ce n'è più d'una, scegli tu quale).",
          )}
        </li>
        <li>
          {tx(
            "Otherwise, if some table cards add up to your card's rank, you must take them (you choose which set); a single card always comes before a sum.",
            "Altrimenti, se due o più carte del tavolo sommate fanno il valore della tua, devi prenderle (se le combinazioni sono più d'una, scegli tu quale); la presa di una carta uguale ha sempre la precedenza sulla somma.",
          )}
        </li>
        <li>{tx("Otherwise your card stays on the table.", "Altrimenti la tua carta resta sul tavolo.")}</li>
        <li>
          {tx(
            "A capture that clears the table is a scopa, worth one point, except on the last card of the hand.",
            "Se con la tua presa porti via tutte le carte dal tavolo fai scopa, che vale un punto; con l'ultima carta della mano però non è scopa.",
          )}
        </li>
        <li>
          {tx(
            "When the forty cards are down, the cards left on the table go to whoever made the last capture.",
            "Quando sono state giocate tutte e quaranta le carte, quelle rimaste sul tavolo vanno a chi ha fatto l'ultima presa.",
          )}
        </li>
        <li>
          {tx(
            "Each turn has a time limit: when it runs out a legal card is played for you, drawn from the match's seed (it shows as \"auto\").",
            "Ogni turno ha un limite di tempo: allo scadere viene giocata al posto tuo una carta valida, scelta in base al seed della partita (e la giocata compare come \"automatica\").",
          )}
        </li>
      </ol>

      <h2>{tx("Points of a hand", "I punti di una mano")}</h2>
      <p>{tx("At the end of each hand a team scores one point for each of these; a tie gives the point to nobody.", "Alla fine di ogni mano si contano i punti: una squadra fa un punto per ciascuna delle voci seguenti; in caso di parità il punto non va a nessuno.")}</p>
      <dl class="rules-points">
        <div>
          <dt>Carte</dt>
          <dd>{tx("more cards than the other team (21 or more).", "più carte dell'altra squadra (almeno 21).")}</dd>
        </div>
        <div>
          <dt>Denari</dt>
          <dd>{tx("more denari (6 or more).", "più denari dell'altra squadra (almeno 6).")}</dd>
        </div>
        <div>
          <dt>Settebello</dt>
          <dd>{tx("the 7 of denari.", "il 7 di denari.")}</dd>
        </div>
        <div>
          <dt>Primiera</dt>
          <dd>
            {tx(
              "the higher sum of the best card of each suit, by the values below; a team that lacks a suit cannot win it.",
              "la primiera più alta: si somma il valore della carta migliore di ogni seme, secondo la tabella qui sotto; una squadra a cui manca un seme non può vincerla.",
            )}
          </dd>
        </div>
        <div>
          <dt>Scope</dt>
          <dd>{tx("one point for each scopa.", "un punto per ogni scopa.")}</dd>
        </div>
        <div>
          <dt>Napola</dt>
          <dd>
            {tx(
              "(when the table plays it) the ace, 2 and 3 of denari score 3, and one more for each next denaro in the run (4, 5...); all ten denari win the match at once.",
              "(se il tavolo la prevede) chi prende l'asso, il 2 e il 3 di denari fa 3 punti, più uno per ogni denaro che continua la scala (il 4, il 5...); chi prende tutti e dieci i denari vince subito la partita.",
            )}
          </dd>
        </div>
      </dl>
      <table class="summary rules-primiera">
        <caption>{tx("Primiera values", "Valori della primiera")}</caption>
        <thead>
          <tr>
            <th scope="col">{tx("Card", "Carta")}</th>
            <th scope="col">{tx("Value", "Valore")}</th>
          </tr>
        </thead>
        <tbody>
          {PRIMIERA.map(([en, it, value]) => (
            <tr key={en}>
              <th scope="row">{tx(en, it)}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>{tx("Options of a table", "Le opzioni del tavolo")}</h2>
      <ul>
        <li>
          {tx(
            "Target score: the match ends when a team reaches it with more points than the other; at a tie another hand is played.",
            "Punteggio obiettivo (11 punti, se non si sceglie altro): la partita finisce quando una squadra lo raggiunge con più punti dell'altra; in caso di parità si gioca un'altra mano.",
          )}
        </li>
        <li>{tx("Napola: the run of denari scores, as above.", "Napola: la scala di denari dall'asso fa punti, come sopra.")}</li>
        <li>
          {tx(
            "Asso pigliatutto: an ace takes the whole table when no ace is on it (that is not a scopa).",
            "Asso pigliatutto: l'asso prende tutte le carte sul tavolo, se sul tavolo non c'è già un asso (e la presa non vale come scopa).",
          )}
        </li>
      </ul>

      <h2>{tx("A fair deal", "Una smazzata equa")}</h2>
      <p>
        {tx(
          "Before the first card the server fixes a secret seed that decides every deal and shows its fingerprint. At the end the seed is revealed, and your browser checks that every card was dealt as the seed says. A finished match can be replayed hand by hand from your history.",
          "Prima che si giochi la prima carta, il server fissa un seed segreto che decide ogni smazzata e ne mostra l'impronta. A fine partita il seed viene rivelato e il tuo browser controlla che ogni carta sia stata distribuita come stabilito dal seed. Una partita finita si può rivedere mano per mano dal tuo storico.",
        )}
      </p>
      <p>
        <a href="/">{tx("Go to the start page", "Vai alla pagina iniziale")}</a>
      </p>
    </article>
  );
}
