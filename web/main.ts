import { mount } from 'svelte';
import App from './App.svelte';
import CompareApp from './compare/CompareApp.svelte';
import './styles.css';

// `?compare=<scenario>` opens the side-by-side view of two designs; anything else the walkthrough.
const compare = new URLSearchParams(location.search).has('compare');
mount(compare ? CompareApp : App, { target: document.getElementById('app')! });
