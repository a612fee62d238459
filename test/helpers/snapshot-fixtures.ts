// Pages for the `agent` snapshot's fixture tests, served by pages.ts under /snap/…: each one
// exercises a way pages hide, name or nest what an agent acts on.

export const SNAPSHOT_PAGES: Record<string, (port: number) => string> = {
  '/snap/shadow': () => `<!doctype html><title>shadow</title>
    <div id="host"><a href="#x" slot="s">light link</a></div>
    <script>
      const root = document.getElementById('host').attachShadow({ mode: 'open' });
      root.innerHTML = '<button>Shadow button</button><slot name="s"></slot><input aria-label="Shadow input">';
    </script>`,
  '/snap/frames': (port) => `<!doctype html><title>frames</title>
    <h1>Frames</h1>
    <iframe title="Same" src="/snap/inner" width="300" height="100"></iframe>
    <iframe title="Other" src="http://localhost:${port}/snap/inner" width="300" height="100"></iframe>`,
  '/snap/inner': () =>
    `<!doctype html><title>inner</title><button onclick="this.textContent = 'Pressed'">Inner</button>`,
  '/snap/hidden': () => `<!doctype html><title>hidden</title>
    <nav aria-label="Main">
      <button aria-expanded="false" onclick="this.setAttribute('aria-expanded', 'true'); document.getElementById('menu').hidden = false">Menu</button>
      <ul id="menu" hidden><li><a href="#a">Hidden item</a></li></ul>
    </nav>
    <div style="display:none"><button>Display none</button></div>
    <div style="visibility:hidden"><button>Visibility hidden</button><button style="visibility:visible">Shown again</button></div>
    <div aria-hidden="true"><button>Aria hidden</button></div>
    <template><button>Template</button></template>`,
  '/snap/icons': () => `<!doctype html><title>icons</title>
    <style>.icon-search::before { content: "Search"; } .glyph::after { content: "Next"; }</style>
    <button aria-label="Close"><svg width="10" height="10"><path d="M0 0L10 10"/></svg></button>
    <button class="icon-search"></button>
    <button><i class="glyph"></i></button>
    <a href="/" title="Home"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""></a>`,
  '/snap/labels': () => `<!doctype html><title>labels</title>
    <label for="first">First name</label> <input id="first">
    <label>Wrapped <input type="email"></label>
    <span id="l1">Via</span> <span id="l2">labelledby</span> <input aria-labelledby="l1 l2">
    <input placeholder="Only a placeholder">
    <label><input type="checkbox" checked> Remember me</label>`,
  '/snap/editable': () => `<!doctype html><title>editable</title>
    <div contenteditable="true" aria-label="Notes">hello <b>world</b></div>
    <p>plain paragraph</p>`,
  '/snap/details': () => `<!doctype html><title>details</title>
    <details id="d"><summary>More</summary><p>Folded text</p><button>Inside</button></details>`,
  '/snap/dialog': () => `<!doctype html><title>dialog</title>
    <dialog open aria-labelledby="dt"><h2 id="dt">Confirm</h2><p>Really?</p><button>OK</button></dialog>
    <dialog><button>Never shown</button></dialog>`,
  // A large page with one field: typing into it must change one line of the snapshot.
  '/snap/big-form': () => `<!doctype html><title>big form</title>
    <label>Search <input id="q"></label> <button onclick="document.getElementById('status').textContent = 'searched ' + document.getElementById('q').value">Go</button>
    <p id="status">idle</p>
    <ul>${Array.from({ length: 3000 }, (_, i) => `<li><a href="#r${i}">result ${i}</a></li>`).join('')}</ul>`,
  // Buttons for the mutation fuzz: each element carries a uid the page records when clicked;
  // names are unique when made (clones keep the name of what they copy, on purpose).
  '/snap/fuzz': () => `<!doctype html><title>fuzz</title><div id="list"></div><p id="log"></p>
    <script>
      window.uid = 0;
      window.make = (name) => {
        const b = document.createElement('button');
        b.textContent = name;
        b.dataset.uid = String(++window.uid);
        return b;
      };
      document.addEventListener('click', (e) => {
        const b = e.target.closest('button');
        if (b) document.getElementById('log').textContent += ' ' + b.dataset.uid;
      });
      for (let i = 0; i < 30; i++) document.getElementById('list').append(window.make('button ' + i));
    </script>`,
};
