// The Account page's "Notify me when it is my turn (daily games) or when I am invited": off until
// the player turns it on, and only then does the browser ask its permission; what the browser
// refuses or cannot do is said in words.

import { useEffect, useState } from "preact/hooks";
import { errorText } from "./api";
import { tx } from "./i18n";
import { pushState, turnOff, turnOn, type PushDeps, type PushState } from "./push";
import { browserPushDeps } from "./pushbrowser";
import { Failed, Loading } from "./status";

/** Why the box cannot be on, or what being on means. */
export function pushHelp(state: PushState): string {
  switch (state) {
    case "unsupported":
      return tx(
        "This browser cannot receive notifications from a site (on an iPhone or iPad: add tavolo to the home screen first, then open it from there).",
        "Questo browser non può ricevere notifiche da un sito (su iPhone o iPad: prima aggiungi tavolo alla schermata Home, poi aprilo da lì).",
      );
    case "denied":
      return tx(
        "The browser blocks notifications from tavolo. To have them, allow notifications for this site in the browser's site settings (the icon beside the address), then turn this on.",
        "Il browser blocca le notifiche di tavolo. Per riceverle, consenti le notifiche per questo sito nelle impostazioni del sito del browser (l'icona accanto all'indirizzo), poi attiva questa opzione.",
      );
    case "disabled":
      return "";
    case "on":
      return tx(
        "This browser shows a notification when a daily game waits for your move (at most one an hour per game) or someone invites you. A tap opens the table.",
        "Questo browser mostra una notifica quando una partita giornaliera aspetta la tua mossa (al massimo una all'ora per partita) o qualcuno ti invita. Un tocco apre il tavolo.",
      );
    case "off":
      return tx(
        "Off. Turning it on asks the browser for permission to show notifications; it holds for this browser only.",
        "Disattivato. Attivandolo il browser chiede il permesso di mostrare notifiche; vale solo per questo browser.",
      );
  }
}

export function PushSetting({ deps = browserPushDeps }: { deps?: PushDeps }) {
  const [state, setState] = useState<PushState | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    pushState(deps).then(setState, () => setState("off"));
  }, [deps]);
  const change = async (on: boolean) => {
    setBusy(true);
    setError(null);
    try {
      setState(on ? await turnOn(deps) : await turnOff(deps));
    } catch (e) {
      setError(errorText(e));
      setState(await pushState(deps).catch((): PushState => "off"));
    }
    setBusy(false);
  };
  const cannot = state === "unsupported";
  // A server without a VAPID key sends no pushes: nothing to turn on.
  if (state === "disabled") return null;
  return (
    <section class="panel" aria-labelledby="push-title" data-testid="push-setting">
      <h2 id="push-title">{tx("Notifications", "Notifiche")}</h2>
      {state === null && <Loading />}
      {state !== null && (
        <div class="field field-check">
          <input id="push-on" type="checkbox" checked={state === "on"} disabled={busy || cannot}
            aria-describedby="push-help" onChange={(e) => void change((e.currentTarget as HTMLInputElement).checked)} />
          <label for="push-on">
            {tx("Notify me when it is my turn (daily games) or when I am invited",
              "Avvisami quando tocca a me (partite giornaliere) o quando mi invitano")}
          </label>
          <p id="push-help" class={`field-help${state === "denied" || cannot ? " is-warning" : ""}`} data-testid="push-help"
            role="status">
            {pushHelp(state)}
          </p>
        </div>
      )}
      {error && <Failed error={error} />}
    </section>
  );
}
