window.myOwnData = {"kept": true};
