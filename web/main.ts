import { mount } from 'svelte';
import App from './App.svelte';
import './styles.css';

// `?compare=<scenario>` opens the side-by-side view of two designs; anything else the
// walkthrough. The walkthrough is the first load; the side-by-side view is its own chunk,
// fetched only when a link opens it.
const target = document.getElementById('app')!;
if (new URLSearchParams(location.search).has('compare')) {
  void import('./compare/CompareApp.svelte').then((m) => mount(m.default, { target }));
} else {
  mount(App, { target });
}
