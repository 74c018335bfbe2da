// The plan dialog is rendered open (it works without script); with script it becomes modal,
// so nothing else on the page can be clicked until the person confirms or cancels.
document.addEventListener("DOMContentLoaded", () => {
  for (const dialog of document.querySelectorAll("dialog[data-modal][open]")) {
    dialog.close();
    dialog.showModal();
    dialog.addEventListener("cancel", (event) => event.preventDefault());
  }
});
