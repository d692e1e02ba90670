import { mount } from 'svelte';
import './styles.css';

// `?compare=<scenario>` opens the side-by-side view of two designs; anything else the
// walkthrough. Each is its own chunk, so the first load fetches only the view it shows.
const target = document.getElementById('app')!;
if (new URLSearchParams(location.search).has('compare')) {
  void import('./compare/CompareApp.svelte').then((m) => mount(m.default, { target }));
} else {
  void import('./App.svelte').then((m) => mount(m.default, { target }));
}
