// The dev gallery's one script, served as /dev/templates/app.js (the pages allow script-src 'self'
// only). Every page works without it; it filters the index as you type, and on a template page
// re-renders the preview as the data is edited and sends to the dev inbox. Values from the server
// are put in with textContent or srcdoc, never as markup of this page.

(() => {
  const index = document.getElementById('template-index');
  if (index) setUpIndex(index);
  const gallery = document.getElementById('gallery');
  if (gallery) setUpTemplatePage(gallery);

  function setUpIndex(main) {
    const input = document.getElementById('q');
    const heading = document.getElementById('index-heading');
    const noMatch = document.getElementById('no-match');
    const rows = [...main.querySelectorAll('li[data-search]')];
    if (!input || rows.length === 0) return;
    const total = rows.length;
    const filter = () => {
      const terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const row of rows) {
        const isMatch = terms.every((t) => row.dataset.search.includes(t));
        row.hidden = !isMatch;
        if (isMatch) shown++;
      }
      for (const section of main.querySelectorAll('section[data-category]')) {
        const visible = section.querySelectorAll('li[data-search]:not([hidden])').length;
        section.hidden = visible === 0;
        const count = section.querySelector('.count');
        if (count) count.textContent = `(${visible})`;
      }
      noMatch.hidden = shown > 0;
      const q = input.value.trim();
      heading.textContent = q ? `Templates matching “${q}” (${shown} of ${total})` : `Templates (${total})`;
      const url = new URL(location.href);
      if (q) url.searchParams.set('q', q);
      else url.searchParams.delete('q');
      history.replaceState(null, '', url);
    };
    input.addEventListener('input', filter);
  }

  function setUpTemplatePage(main) {
    const id = main.dataset.template;
    const version = main.dataset.version;
    const $ = (elementId) => document.getElementById(elementId);
    const toolbar = $('toolbar');
    const project = $('project');
    const frame = $('frame');
    const text = $('text');
    const subject = $('subject');
    const preheader = $('preheader');
    const data = $('data');
    const status = $('data-status');
    const errors = $('errors');
    const reset = $('reset');
    const send = $('send');
    const sendTo = $('send-to');
    const sendButton = $('send-button');
    const sendStatus = $('send-status');
    $('apply').hidden = true;
    reset.hidden = false;
    send.hidden = false;

    const checked = (name) => toolbar.querySelector(`input[name="${name}"]:checked`).value;
    const base = `/dev/templates/${encodeURIComponent(id)}`;

    async function post(path, body) {
      try {
        const res = await fetch(base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          credentials: 'same-origin',
        });
        return { status: res.status, body: await res.json() };
      } catch (err) {
        return { status: 0, body: { ok: false, error: { code: 'network', message: String(err) } } };
      }
    }

    function setStatus(kind, message) {
      status.className = `status ${kind}`;
      status.textContent = message;
      data.setAttribute('aria-invalid', kind === 'bad' ? 'true' : 'false');
    }

    /**
     * A refused send ("Not sent: …") says why the data, or the project, could not be sent: stale as
     * soon as either changes or the data renders. Cleared then; an accepted send's link stays.
     */
    function clearSendFailure() {
      if (!sendStatus.classList.contains('bad')) return;
      sendStatus.className = 'status';
      sendStatus.replaceChildren();
    }

    /** The errors, each with its path; the field table's row of each path is marked. */
    function showErrors(details) {
      errors.replaceChildren();
      for (const row of document.querySelectorAll('tr.has-error')) row.classList.remove('has-error');
      for (const d of details) {
        const li = document.createElement('li');
        const code = document.createElement('code');
        code.textContent = d.path;
        li.append(code, ` ${d.message}`);
        errors.append(li);
        const dataPath = d.path.replace(/^\/data/, '');
        for (const row of document.querySelectorAll('tr[data-path]')) {
          if (dataPath === row.dataset.path || dataPath.startsWith(`${row.dataset.path}/`))
            row.classList.add('has-error');
        }
      }
      errors.hidden = details.length === 0;
    }

    function parseData() {
      try {
        return { ok: true, value: JSON.parse(data.value) };
      } catch (err) {
        return { ok: false, message: err.message };
      }
    }

    function syncUrl() {
      const url = new URL(location.href);
      url.searchParams.set('version', version);
      if (project.value) url.searchParams.set('project', project.value);
      else url.searchParams.delete('project');
      for (const name of ['scheme', 'width', 'view']) url.searchParams.set(name, checked(name));
      history.replaceState(null, '', url);
    }

    function applyLayout() {
      const width = checked('width');
      const isText = checked('view') === 'text';
      frame.classList.toggle('w375', width === '375');
      frame.classList.toggle('w800', width === '800');
      frame.classList.toggle('dark', checked('scheme') === 'dark');
      frame.hidden = isText;
      text.hidden = !isText;
    }

    let latest = 0;
    async function render() {
      const parsed = parseData();
      if (!parsed.ok) {
        setStatus('bad', `Not valid JSON: ${parsed.message}`);
        showErrors([]);
        return;
      }
      const mine = ++latest;
      setStatus('', 'Rendering…');
      const { status: code, body } = await post('/render', {
        version,
        data: parsed.value,
        ...(project.value && { project: project.value }),
        colorScheme: checked('scheme'),
      });
      if (mine !== latest) return;
      if (body.ok) {
        // The frame's document as the server prepared it (links open in a new tab).
        frame.srcdoc = body.frameHtml;
        text.textContent = body.text;
        subject.textContent = body.subject;
        preheader.textContent = body.preheader;
        setStatus('good', 'Valid: the preview shows this data.');
        showErrors([]);
        clearSendFailure();
        return;
      }
      const error = body.error ?? { code: `http_${code}`, message: 'No answer.' };
      const n = error.details?.length ?? 0;
      setStatus(
        'bad',
        error.code === 'invalid_template_data'
          ? `${n} ${n === 1 ? 'problem' : 'problems'}: the preview shows the last valid data.`
          : `${error.code}: ${error.message}`,
      );
      showErrors(error.details ?? []);
    }

    let timer;
    data.addEventListener('input', () => {
      clearSendFailure();
      clearTimeout(timer);
      timer = setTimeout(render, 300);
    });
    reset.addEventListener('click', () => {
      data.value = data.defaultValue;
      clearSendFailure();
      render();
    });
    toolbar.addEventListener('submit', (event) => event.preventDefault());
    const sendNote = $('send-note');
    /** The chosen project says where a send goes; drafts and a service without capture never send. */
    function applySendTarget() {
      if (send.hasAttribute('data-off')) return;
      const option = project.selectedOptions[0];
      sendNote.textContent = option.dataset.sendNote;
      sendButton.disabled = !option.hasAttribute('data-can-send');
    }

    toolbar.addEventListener('change', (event) => {
      syncUrl();
      applyLayout();
      if (event.target.name === 'project') {
        applySendTarget();
        clearSendFailure();
      }
      if (event.target.name === 'scheme' || event.target.name === 'project') render();
    });

    send.addEventListener('submit', async (event) => {
      event.preventDefault();
      const parsed = parseData();
      sendStatus.className = 'status';
      if (!parsed.ok) {
        sendStatus.textContent = `Not sent: the data is not valid JSON (${parsed.message}).`;
        sendStatus.className = 'status bad';
        return;
      }
      sendButton.disabled = true;
      sendStatus.textContent = 'Sending…';
      const { body } = await post('/send', {
        version,
        data: parsed.value,
        to: sendTo.value,
        ...(project.value && { project: project.value }),
      });
      sendButton.disabled = false;
      applySendTarget();
      sendStatus.replaceChildren();
      if (body.ok) {
        sendStatus.className = 'status good';
        const link = document.createElement('a');
        link.href = body.inboxUrl;
        link.textContent = 'Open the dev inbox';
        // The message page exists once delivery (a moment later) has captured it.
        const message = document.createElement('a');
        message.href = body.messageUrl;
        message.textContent = body.messageId;
        sendStatus.append('Accepted as ', message, ` (environment ${body.environmentName}). `, link);
        return;
      }
      sendStatus.className = 'status bad';
      const error = body.error ?? { code: 'unknown', message: 'No answer.' };
      sendStatus.textContent = `Not sent: ${error.code}: ${error.message}`;
      if (error.details) showErrors(error.details);
    });
  }
})();
